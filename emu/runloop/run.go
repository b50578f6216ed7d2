package runloop

import (
	"fmt"
	"time"
)

// Run is the state of one run. It belongs to one goroutine; New makes one
// ready to Step.
type Run struct {
	plan     Plan
	flows    []flow
	stage    stage
	deadline time.Time // zero: the run has none
	server   int       // servers stage: the flow whose server is starting

	// outside is the first Interrupt or EmulationFailed event, nil if none.
	outside *Event

	// flows stage: when the next sample and live line are due.
	nextSample, nextStatus time.Time

	outcome Outcome
	err     error
	// stopping stages: when the stage began, and whether its endpoints
	// were asked to end and killed yet.
	stopAt        time.Time
	ended, killed bool
}

type stage uint8

const (
	stageServers stage = iota
	stageFlows
	stageStopClients
	stageStopServers
	stageOver
)

// proc is where one endpoint process is in its life.
type proc uint8

const (
	procNone     proc = iota // not asked for yet
	procStarting             // Start* action given, no answer yet
	procFailed               // could not be started
	procRunning
	procExited
)

// flow is what the run knows of one flow.
type flow struct {
	Flow
	server, client proc
	serverAt       time.Time // when the server started (ready timeout)
	serverReady    bool
	serverErr      error  // why the server could not be started
	serverExit     string // how the server exited
	serverCC       string
	clientErr      error // why the client could not be started
	bytes          int64
	lastBytes      time.Time // when bytes last grew, or the client started
	done           *Done
	failure        string
	// bytes and time at the last live line, for its rate
	statusBytes int64
	statusAt    time.Time
}

// New returns the state of a run of plan, before anything has started.
func New(plan Plan) *Run {
	r := &Run{plan: plan, deadline: plan.deadline()}
	r.plan.Flows = append([]Flow(nil), plan.Flows...)
	r.flows = make([]flow, len(plan.Flows))
	for i, f := range plan.Flows {
		r.flows[i].Flow = f
	}
	return r
}

// Apply records ev. It never acts: the next Step says what is due.
// Events that arrive after the run is decided still count for the flows
// (a client reports what it measured when it is asked to end).
func (r *Run) Apply(ev Event) {
	switch ev.Kind {
	case Interrupt, EmulationFailed:
		if r.outside == nil && r.stage < stageStopClients {
			e := ev
			r.outside = &e
		}
		return
	}
	f := &r.flows[ev.Flow]
	switch ev.Kind {
	case ServerStarted:
		f.server, f.serverAt, f.serverErr = procRunning, ev.At, ev.Err
		if ev.Err != nil {
			f.server = procFailed
		}
	case ServerReady:
		f.serverReady = true
	case ServerAccept:
		if ev.CC != "" {
			f.serverCC = ev.CC
		}
	case ServerExited:
		f.server, f.serverExit = procExited, ev.Exit
	case ClientStarted:
		f.client, f.lastBytes, f.clientErr = procRunning, ev.At, ev.Err
		if ev.Err != nil {
			f.client = procFailed
		}
	case ClientProgress:
		if ev.Bytes > f.bytes {
			f.bytes = ev.Bytes
			if ev.At.After(f.lastBytes) {
				f.lastBytes = ev.At
			}
		}
	case ClientDone:
		d := ev.Done
		f.done = &d
		f.bytes = max(f.bytes, d.Bytes)
	case ClientExited:
		f.client = procExited
		f.failure = clientFailure(f.done, ev.Exit)
	default:
		panic(fmt.Sprintf("runloop: unknown event kind %v", ev.Kind))
	}
}

// clientFailure is why a flow failed, judged when its client has exited:
// no report, an error other than being asked to end, or an incomplete
// flow without an error.
func clientFailure(d *Done, exit string) string {
	switch {
	case d == nil:
		return "client " + exit
	case d.Error != "" && d.Error != interrupted:
		return d.Error
	case !d.Complete && d.Error == "":
		return "client " + exit
	}
	return ""
}

// FlowState is what a run knows of a flow: what its endpoints reported.
type FlowState struct {
	// Started: its client was started; Finished: the client has exited.
	Started, Finished bool
	// Bytes is the most the client reported, in progress or done.
	Bytes int64
	// Done is the client's done report; nil if it sent none.
	Done *Done
	// Failure says why the flow failed; "" if it did not (yet).
	Failure string
	// ServerCC is the congestion control the server reported; "" if it
	// did not.
	ServerCC string
}

// Flow returns what the run knows of flow i.
func (r *Run) Flow(i int) FlowState {
	f := &r.flows[i]
	s := FlowState{
		Started: f.client == procRunning || f.client == procExited, Finished: f.client == procExited,
		Bytes: f.bytes, Failure: f.failure, ServerCC: f.serverCC,
	}
	if f.done != nil {
		d := *f.done
		s.Done = &d
	}
	return s
}

// Over reports whether the run is over: decided, and every endpoint
// process it started has exited.
func (r *Run) Over() bool { return r.stage == stageOver }

// End returns how the run ended (Undecided while it goes on) and its
// error, nil when it is OK.
func (r *Run) End() (Outcome, error) { return r.outcome, r.err }
