package runloop

import (
	"errors"
	"fmt"
	"time"
)

// Step returns the actions due at now, in the order to carry them out, and
// when the next one may be due: after now, or now itself while a start is
// to be answered; zero when only an event can make one due. The caller
// answers every StartServer and StartClient with its Started event before
// the next Step (and, best, steps again at once).
func (r *Run) Step(now time.Time) ([]Action, time.Time) {
	var acts []Action
	if r.stage == stageServers {
		acts = r.stepServers(now, acts)
	}
	if r.stage == stageFlows {
		acts = r.stepFlows(now, acts)
	}
	if r.stage == stageStopClients {
		acts = r.stepStopClients(now, acts)
	}
	if r.stage == stageStopServers {
		acts = r.stepStopServers(now, acts)
	}
	return acts, r.next(now)
}

// stepServers starts the servers one after the other, each once the one
// before is ready, and moves on to the flows when all are.
func (r *Run) stepServers(now time.Time, acts []Action) []Action {
	for ; r.server < len(r.flows); r.server++ {
		f := &r.flows[r.server]
		switch f.server {
		case procNone:
			f.server = procStarting
			return append(acts, Action{Kind: StartServer, Flow: r.server})
		case procStarting:
			return acts
		case procFailed:
			return r.stop(now, acts, Failed, f.serverErr)
		}
		if f.serverReady {
			continue
		}
		if f.server == procExited {
			return r.stop(now, acts, Failed, fmt.Errorf("flow %s: server: %s", f.Name, f.serverExit))
		}
		if o := r.outside; o != nil {
			if o.Kind == Interrupt {
				return r.stop(now, acts, Interrupted, fmt.Errorf("flow %s: server: %w", f.Name, o.Err))
			}
			return r.stop(now, acts, Failed, o.Err)
		}
		if !now.Before(f.serverAt.Add(ReadyTimeout)) {
			return r.stop(now, acts, Failed, fmt.Errorf("flow %s: server: not ready after %v", f.Name, ReadyTimeout))
		}
		return acts
	}
	r.stage = stageFlows
	r.nextSample, r.nextStatus = now, now
	return acts
}

// stepFlows decides whether the run is over, and otherwise starts the
// clients that are due, samples the links and prints the live line.
func (r *Run) stepFlows(now time.Time, acts []Action) []Action {
	if outcome, err := r.verdict(now); outcome != Undecided {
		// A last sample, so the links' figures cover the whole run.
		acts = append(acts, Action{Kind: SampleLinks})
		return r.stop(now, acts, outcome, err)
	}
	starting := false
	for i := range r.flows {
		f := &r.flows[i]
		if f.client == procNone && !now.Before(r.plan.Epoch.Add(f.Start)) {
			f.client, starting = procStarting, true
			acts = append(acts, Action{Kind: StartClient, Flow: i})
		}
	}
	if starting {
		// Sample and print once the clients have started (the caller
		// steps again after answering), so the line shows them.
		return acts
	}
	if !now.Before(r.nextSample) {
		acts = append(acts, Action{Kind: SampleLinks})
		// Keep the phase, like a ticker; a late step skips samples.
		r.nextSample = r.nextSample.Add((now.Sub(r.nextSample)/SamplePeriod + 1) * SamplePeriod)
	}
	if r.plan.Status && !now.Before(r.nextStatus) {
		acts = append(acts, Action{Kind: PrintStatus, Line: r.statusLine(now)})
		r.nextStatus = now.Add(StatusPeriod)
	}
	return acts
}

// verdict decides whether the flows stage is over at now, checking, in
// order: clients that could not start; per flow, a failed client, a stall
// and a dead server; every flow finished; the deadline; a stop from
// outside.
func (r *Run) verdict(now time.Time) (Outcome, error) {
	for i := range r.flows {
		if f := &r.flows[i]; f.client == procFailed {
			return Failed, fmt.Errorf("flow %s: client: %w", f.Name, f.clientErr)
		}
	}
	allDone := true
	for i := range r.flows {
		f := &r.flows[i]
		if f.failure != "" {
			return Failed, fmt.Errorf("flow %s: %s", f.Name, f.failure)
		}
		if r.stalled(f, now) {
			return Failed, fmt.Errorf("flow %s: no data for %v (run.grace)", f.Name, r.plan.Grace)
		}
		finished := f.client == procExited
		if !finished {
			allDone = false
			if f.server == procExited {
				return Failed, fmt.Errorf("flow %s: server %s", f.Name, f.serverExit)
			}
		}
	}
	if allDone {
		return OK, nil
	}
	if !r.deadline.IsZero() && now.After(r.deadline) {
		return Failed, fmt.Errorf("run did not end within its flows' duration plus run.grace (%v)", r.plan.Grace)
	}
	if o := r.outside; o != nil {
		if o.Kind == Interrupt {
			return Interrupted, o.Err
		}
		return Failed, o.Err
	}
	return Undecided, nil
}

// stalled: the flow's client runs and has had no new data for longer than
// the grace.
func (r *Run) stalled(f *flow, now time.Time) bool {
	return f.client == procRunning && now.Sub(f.lastBytes) > r.plan.Grace
}

// stop decides the run and moves on to stopping the endpoints.
func (r *Run) stop(now time.Time, acts []Action, outcome Outcome, err error) []Action {
	if err == nil && outcome != OK {
		err = errors.New("runloop: " + outcome.String() + " without an error")
	}
	r.outcome, r.err = outcome, err
	r.stage, r.stopAt, r.ended, r.killed = stageStopClients, now, false, false
	return append(acts, Action{Kind: Stop, Outcome: outcome, Err: err})
}

// stepStopClients asks every running client to end, kills those that have
// not after StopTimeout, and moves on when all have exited.
func (r *Run) stepStopClients(now time.Time, acts []Action) []Action {
	running := func(f *flow) bool { return f.client == procRunning }
	acts = r.stopProcs(now, acts, running, EndClient, KillClient)
	if r.anyFlow(running) {
		return acts
	}
	r.stage, r.stopAt, r.ended, r.killed = stageStopServers, now, false, false
	return acts
}

// stepStopServers does the same for the servers once the clients are gone.
func (r *Run) stepStopServers(now time.Time, acts []Action) []Action {
	running := func(f *flow) bool { return f.server == procRunning }
	acts = r.stopProcs(now, acts, running, EndServer, KillServer)
	if !r.anyFlow(running) {
		r.stage = stageOver
	}
	return acts
}

func (r *Run) stopProcs(now time.Time, acts []Action, running func(*flow) bool, end, kill ActionKind) []Action {
	switch {
	case !r.ended:
		r.ended = true
		for i := range r.flows {
			if running(&r.flows[i]) {
				acts = append(acts, Action{Kind: end, Flow: i})
			}
		}
	case !r.killed && !now.Before(r.stopAt.Add(StopTimeout)):
		r.killed = true
		for i := range r.flows {
			if running(&r.flows[i]) {
				acts = append(acts, Action{Kind: kill, Flow: i})
			}
		}
	}
	return acts
}

func (r *Run) anyFlow(ok func(*flow) bool) bool {
	for i := range r.flows {
		if ok(&r.flows[i]) {
			return true
		}
	}
	return false
}

// next is the earliest time at which a Step may have something to do
// without a new event; zero when only an event can.
func (r *Run) next(now time.Time) time.Time {
	for i := range r.flows {
		if f := &r.flows[i]; f.server == procStarting || f.client == procStarting {
			return now
		}
	}
	var next time.Time
	earliest := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	switch r.stage {
	case stageServers:
		if r.server < len(r.flows) {
			if f := &r.flows[r.server]; f.server == procRunning && !f.serverReady {
				earliest(f.serverAt.Add(ReadyTimeout))
			}
		}
	case stageFlows:
		earliest(r.nextSample)
		if r.plan.Status {
			earliest(r.nextStatus)
		}
		for i := range r.flows {
			f := &r.flows[i]
			switch f.client {
			case procNone:
				earliest(r.plan.Epoch.Add(f.Start))
			case procRunning:
				// A stall is longer than the grace: due just after it.
				earliest(f.lastBytes.Add(r.plan.Grace + 1))
			}
		}
		if !r.deadline.IsZero() {
			earliest(r.deadline.Add(1))
		}
	case stageStopClients, stageStopServers:
		if !r.killed {
			earliest(r.stopAt.Add(StopTimeout))
		}
	}
	return next
}
