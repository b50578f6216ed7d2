package runloop

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// epoch is the fake clock's time zero.
var epoch = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// sim drives a Run the way package emu does, with a fake clock: it steps,
// answers start actions at once, moves the clock to the earlier of the
// run's deadline and the next scripted event, and repeats. The endpoints
// it plays behave: servers report ready readyAfter after they start, and an
// endpoint asked to end exits 10 ms later (a client reporting what it
// received, interrupted), unless it is listed in hang; a killed one exits
// at once.
type sim struct {
	t          *testing.T
	run        *Run
	now        time.Time
	script     []timed
	readyAfter time.Duration // <0: servers never report ready
	lag        time.Duration // every wake-up comes this late
	startErr   map[string]error
	hang       map[string]bool

	log     []string        // actions other than samples and live lines, "2s start client 1"
	samples []time.Duration // when the links were sampled
	status  []string        // live lines
	stopped time.Duration   // when the run was decided
}

// timed is a scripted event, at a time since the epoch.
type timed struct {
	at time.Duration
	ev Event
}

func newSim(t *testing.T, p Plan, script ...timed) *sim {
	t.Helper()
	p.Epoch = epoch
	s := &sim{t: t, run: New(p), now: epoch, startErr: map[string]error{}, hang: map[string]bool{}, stopped: -1}
	for _, e := range script {
		s.schedule(e)
	}
	return s
}

func (s *sim) el() time.Duration { return s.now.Sub(epoch) }

func (s *sim) schedule(e timed) {
	i := len(s.script)
	for i > 0 && s.script[i-1].at > e.at {
		i--
	}
	s.script = slices.Insert(s.script, i, e)
}

// runUntil runs until the run is over or the clock would pass end.
func (s *sim) runUntil(end time.Duration) {
	s.t.Helper()
	for {
		acts, next := s.run.Step(s.now)
		answered := false
		for _, a := range acts {
			answered = s.act(a) || answered
		}
		if answered {
			if !next.Equal(s.now) {
				s.t.Fatalf("at %v: a start to answer, and the next deadline is %v, not now", s.el(), next.Sub(epoch))
			}
			continue
		}
		if !next.IsZero() && !next.After(s.now) {
			s.t.Fatalf("at %v: next deadline %v is not after now", s.el(), next.Sub(epoch))
		}
		if s.run.Over() {
			return
		}
		// The timer fires lag late; an event may come first.
		wake := next
		if !wake.IsZero() {
			wake = wake.Add(s.lag)
		}
		if len(s.script) > 0 {
			if at := epoch.Add(s.script[0].at); wake.IsZero() || at.Before(wake) {
				wake = at
			}
		}
		if wake.IsZero() {
			s.t.Fatalf("at %v: the run waits for an event that never comes", s.el())
		}
		if wake.After(epoch.Add(end)) {
			return
		}
		s.now = wake
		for len(s.script) > 0 && !epoch.Add(s.script[0].at).After(s.now) {
			ev := s.script[0].ev
			ev.At = epoch.Add(s.script[0].at)
			s.script = s.script[1:]
			s.run.Apply(ev)
		}
	}
}

// act carries out a; it reports whether it applied an answer.
func (s *sim) act(a Action) bool {
	at := s.el()
	switch a.Kind {
	case SampleLinks:
		s.samples = append(s.samples, at)
		return false
	case PrintStatus:
		s.status = append(s.status, a.Line)
		return false
	}
	s.log = append(s.log, fmt.Sprintf("%v %v", at, a))
	name := fmt.Sprintf("client %d", a.Flow) // for startErr and hang
	if a.Kind == StartServer || a.Kind == EndServer || a.Kind == KillServer {
		name = fmt.Sprintf("server %d", a.Flow)
	}
	switch a.Kind {
	case StartServer:
		err := s.startErr[name]
		s.run.Apply(Event{Kind: ServerStarted, Flow: a.Flow, At: s.now, Err: err})
		if err == nil && s.readyAfter >= 0 {
			s.schedule(timed{at + s.readyAfter, Event{Kind: ServerReady, Flow: a.Flow}})
		}
		return true
	case StartClient:
		s.run.Apply(Event{Kind: ClientStarted, Flow: a.Flow, At: s.now, Err: s.startErr[name]})
		return true
	case Stop:
		s.stopped = at
	case EndClient:
		if !s.hang[name] {
			d := Done{Bytes: s.run.flows[a.Flow].bytes, Error: "interrupted"}
			s.schedule(timed{at + 10*time.Millisecond, Event{Kind: ClientDone, Flow: a.Flow, Done: d}})
			s.schedule(timed{at + 10*time.Millisecond, Event{Kind: ClientExited, Flow: a.Flow, Exit: "exit status 1"}})
		}
	case EndServer:
		if !s.hang[name] {
			s.schedule(timed{at + 10*time.Millisecond, Event{Kind: ServerExited, Flow: a.Flow, Exit: "exited"}})
		}
	case KillClient:
		s.schedule(timed{at, Event{Kind: ClientExited, Flow: a.Flow, Exit: "signal: killed"}})
	case KillServer:
		s.schedule(timed{at, Event{Kind: ServerExited, Flow: a.Flow, Exit: "signal: killed"}})
	}
	return false
}

// outcome fails the test unless the run is over with want and an error
// reading wantErr ("" for none), decided at stopAt.
func (s *sim) outcome(want Outcome, wantErr string, stopAt time.Duration) {
	s.t.Helper()
	if !s.run.Over() {
		s.t.Errorf("run not over at %v; log:\n%s", s.el(), strings.Join(s.log, "\n"))
	}
	got, err := s.run.End()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if got != want || msg != wantErr {
		s.t.Errorf("end = %v, %q; want %v, %q", got, msg, want, wantErr)
	}
	if s.stopped != stopAt {
		s.t.Errorf("decided at %v, want %v; log:\n%s", s.stopped, stopAt, strings.Join(s.log, "\n"))
	}
}

// logged returns the log lines that contain sub.
func (s *sim) logged(sub string) []string {
	var out []string
	for _, l := range s.log {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// Scripted events.

func progress(at time.Duration, flow int, bytes int64) timed {
	return timed{at, Event{Kind: ClientProgress, Flow: flow, Bytes: bytes}}
}

// steady reports progress for flow every 250 ms from from to to, at rate
// bytes per second.
func steady(flow int, from, to time.Duration, rate int64) []timed {
	var out []timed
	for t := from; t <= to; t += 250 * time.Millisecond {
		out = append(out, progress(t, flow, int64((t-from).Seconds()*float64(rate))))
	}
	return out
}

func done(at time.Duration, flow int, d Done) timed {
	return timed{at, Event{Kind: ClientDone, Flow: flow, Done: d}}
}

func clientExit(at time.Duration, flow int, exit string) timed {
	return timed{at, Event{Kind: ClientExited, Flow: flow, Exit: exit}}
}

// finish is a client that completes with bytes and exits.
func finish(at time.Duration, flow int, bytes int64) []timed {
	return []timed{done(at, flow, Done{Bytes: bytes, Complete: true}), clientExit(at, flow, "exited")}
}

func serverExit(at time.Duration, flow int, exit string) timed {
	return timed{at, Event{Kind: ServerExited, Flow: flow, Exit: exit}}
}

func outside(at time.Duration, kind EventKind, err error) timed {
	return timed{at, Event{Kind: kind, Err: err}}
}

var errInterrupted = errors.New("run interrupted")

// join flattens scripts.
func join(parts ...[]timed) []timed { return slices.Concat(parts...) }

func one(t timed) []timed { return []timed{t} }
