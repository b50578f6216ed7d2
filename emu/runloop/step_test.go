package runloop

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

const (
	ms = time.Millisecond
	s1 = time.Second
)

func sized(name string, start time.Duration, size int64) Flow {
	return Flow{Name: name, Start: start, Size: size}
}

func windowed(name string, start, d time.Duration) Flow {
	return Flow{Name: name, Start: start, Duration: d}
}

func plan(grace time.Duration, flows ...Flow) Plan { return Plan{Flows: flows, Grace: grace} }

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// TestClientStartTimes: clients start at their offsets from the epoch, and
// those due before the servers are ready (or before a late wake-up) start
// at once.
func TestClientStartTimes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		flows      []Flow
		readyAfter time.Duration
		lag        time.Duration
		want       []string
	}{
		{
			name:  "offsets",
			flows: []Flow{sized("a", 0, 1e9), sized("b", 2*s1, 1e9), sized("c", 5*s1, 1e9)},
			want: []string{"0s start server 0", "0s start server 1", "0s start server 2",
				"0s start client 0", "2s start client 1", "5s start client 2"},
		},
		{
			name:       "servers ready late",
			flows:      []Flow{sized("a", 0, 1e9), sized("b", s1, 1e9), sized("c", 3*s1, 1e9)},
			readyAfter: 600 * ms,
			want: []string{"0s start server 0", "600ms start server 1", "1.2s start server 2",
				"1.8s start client 0", "1.8s start client 1", "3s start client 2"},
		},
		{
			name:  "late wake-up",
			flows: []Flow{sized("a", 0, 1e9), sized("b", 2*s1, 1e9), sized("c", 2*s1+50*ms, 1e9)},
			lag:   30 * ms,
			want: []string{"0s start server 0", "0s start server 1", "0s start server 2",
				"0s start client 0", "2.03s start client 1", "2.08s start client 2"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, plan(30*s1, tc.flows...))
			s.readyAfter, s.lag = tc.readyAfter, tc.lag
			s.runUntil(6 * s1)
			equal(t, "starts", s.logged("start"), tc.want)
			if o, _ := s.run.End(); o != Undecided {
				t.Errorf("outcome %v before the flows ended", o)
			}
		})
	}
}

// TestSamplesAndLiveLines: the links are sampled every 100 ms and the live
// line printed every second from when the servers are ready, on a fixed
// phase however many events come in between or however late the timer.
func TestSamplesAndLiveLines(t *testing.T) {
	for _, lag := range []time.Duration{0, 7 * ms, 250 * ms} {
		s := newSim(t, Plan{Flows: []Flow{sized("a", 0, 1e9)}, Grace: 30 * s1, Status: true},
			join(steady(0, 0, 3*s1, 1e6))...)
		s.readyAfter, s.lag = 350*ms, lag
		s.runUntil(3*s1 + 400*ms)
		if lag == 0 && len(s.samples) != 31 {
			t.Errorf("%d samples in 3 s: %v", len(s.samples), s.samples)
		}
		last := time.Duration(-1)
		for i, at := range s.samples {
			// Due on the grid from 350 ms; taken then, or as late as the
			// timer, and never twice for one point of the grid.
			k := (at - 350*ms) / (100 * ms)
			if due := 350*ms + k*100*ms; at-due > lag || k <= last {
				t.Errorf("lag %v: sample %d at %v, off the grid or twice: %v", lag, i, at, s.samples)
				break
			}
			last = k
		}
		if lag < 250*ms && len(s.status) != 4 {
			t.Errorf("lag %v: %d live lines in 3 s: %q", lag, len(s.status), s.status)
		}
	}
}

// TestLiveLine: the live line's text, byte for byte: waiting, running with
// the rate since the last line and the share of the size, done, and the
// time left when every flow has a duration.
func TestLiveLine(t *testing.T) {
	s := newSim(t, Plan{Flows: []Flow{sized("a", 0, 10e6), windowed("b", 1500*ms, 10*s1), sized("c", 0, 2e6)}, Grace: 30 * s1, Status: true},
		join(steady(0, 0, 3*s1, 1e6), steady(1, 1500*ms, 3*s1, 500e3),
			one(progress(500*ms, 2, 1e6)), finish(1500*ms, 2, 2e6))...)
	s.runUntil(2*s1 + 500*ms)
	equal(t, "lines", s.status, []string{
		"[   0.0s] | a 0 B   0.0 Mbit/s   0% | b waiting | c 0 B   0.0 Mbit/s   0%",
		"[   1.0s] | a 1.0 MB   8.0 Mbit/s  10% | b waiting | c 1.0 MB   8.0 Mbit/s  50%",
		"[   2.0s] | a 2.0 MB   8.0 Mbit/s  20% | b 250.0 kB   2.0 Mbit/s | c done 2.0 MB",
	})

	s = newSim(t, Plan{Flows: []Flow{windowed("d", 0, 5*s1)}, Grace: 2 * s1, Status: true}, steady(0, 0, 10*s1, 125e3)...)
	s.runUntil(9 * s1)
	equal(t, "lines with a deadline", s.status, []string{
		"[   0.0s] | d 0 B   0.0 Mbit/s | ≤7s left",
		"[   1.0s] | d 125.0 kB   1.0 Mbit/s | ≤6s left",
		"[   2.0s] | d 250.0 kB   1.0 Mbit/s | ≤5s left",
		"[   3.0s] | d 375.0 kB   1.0 Mbit/s | ≤4s left",
		"[   4.0s] | d 500.0 kB   1.0 Mbit/s | ≤3s left",
		"[   5.0s] | d 625.0 kB   1.0 Mbit/s | ≤2s left",
		"[   6.0s] | d 750.0 kB   1.0 Mbit/s | ≤1s left",
		"[   7.0s] | d 875.0 kB   1.0 Mbit/s | ≤0s left",
	})
}

// TestEnd: how and when a run ends, and its error, byte for byte.
func TestEnd(t *testing.T) {
	grace := 5 * s1
	for _, tc := range []struct {
		name     string
		flows    []Flow
		script   []timed
		startErr map[string]error
		outcome  Outcome
		err      string
		at       time.Duration
	}{
		{
			name:    "every flow finished",
			flows:   []Flow{sized("a", 0, 3e6), sized("b", s1, 3e6)},
			script:  join(steady(0, 0, 2*s1, 1e6), finish(2500*ms, 0, 3e6), steady(1, s1, 3*s1, 1e6), finish(3200*ms, 1, 3e6)),
			outcome: OK, at: 3200 * ms,
		},
		{
			name:    "stalled flow",
			flows:   []Flow{sized("a", 0, 3e6)},
			script:  []timed{progress(s1, 0, 1000), progress(2*s1, 0, 2000), progress(3*s1, 0, 2000)},
			outcome: Failed, err: "flow a: no data for 5s (run.grace)", at: 7*s1 + 1,
		},
		{
			name:    "stalled from the start",
			flows:   []Flow{sized("a", 2*s1, 3e6)},
			outcome: Failed, err: "flow a: no data for 5s (run.grace)", at: 7*s1 + 1,
		},
		{
			name:  "a waiting flow does not stall",
			flows: []Flow{sized("a", 0, 3e6), sized("b", 20*s1, 3e6)},
			script: join(steady(0, 0, 12*s1, 250e3), finish(12*s1, 0, 3e6),
				steady(1, 20*s1, 22*s1, 1e6), finish(22*s1, 1, 3e6)),
			outcome: OK, at: 22 * s1,
		},
		{
			name:    "server dies before its flow finished",
			flows:   []Flow{sized("a", 0, 3e6)},
			script:  join(steady(0, 0, 2*s1, 1e6), one(serverExit(2100*ms, 0, "signal: killed"))),
			outcome: Failed, err: "flow a: server signal: killed", at: 2100 * ms,
		},
		{
			name:  "server dies after its flow finished",
			flows: []Flow{sized("a", 0, 1e6), sized("b", 0, 3e6)},
			script: join(finish(s1, 0, 1e6), one(serverExit(1500*ms, 0, "signal: killed")),
				steady(1, 0, 3*s1, 1e6), finish(3*s1, 1, 3e6)),
			outcome: OK, at: 3 * s1,
		},
		{
			name:    "server dies before its client starts",
			flows:   []Flow{sized("a", 0, 1e6), sized("b", 4*s1, 3e6)},
			script:  join(steady(0, 0, 2*s1, 1e6), one(serverExit(1500*ms, 1, "exit status 2: panic: boom"))),
			outcome: Failed, err: "flow b: server exit status 2: panic: boom", at: 1500 * ms,
		},
		{
			name:    "client reports an error",
			flows:   []Flow{sized("a", 0, 3e6)},
			script:  []timed{done(s1, 0, Done{Bytes: 5000, Error: "connection refused"}), clientExit(s1+ms, 0, "exit status 1")},
			outcome: Failed, err: "flow a: connection refused", at: s1 + ms,
		},
		{
			name:    "client incomplete without an error",
			flows:   []Flow{sized("a", 0, 3e6)},
			script:  []timed{done(s1, 0, Done{Bytes: 5000}), clientExit(s1, 0, "exit status 1: short body")},
			outcome: Failed, err: "flow a: client exit status 1: short body", at: s1,
		},
		{
			name:    "client exits without a report",
			flows:   []Flow{sized("a", 0, 3e6)},
			script:  []timed{clientExit(s1, 0, "signal: segmentation fault")},
			outcome: Failed, err: "flow a: client signal: segmentation fault", at: s1,
		},
		{
			name:    "client interrupted is no failure",
			flows:   []Flow{sized("a", 0, 3e6)},
			script:  []timed{done(s1, 0, Done{Bytes: 5000, Error: "interrupted"}), clientExit(s1, 0, "exit status 1")},
			outcome: OK, at: s1,
		},
		{
			name:     "client cannot start",
			flows:    []Flow{sized("a", 0, 3e6), sized("b", s1, 3e6)},
			script:   steady(0, 0, 2*s1, 1e6),
			startErr: map[string]error{"client 1": errors.New("b client: start in emu-x-cli: no such file")},
			outcome:  Failed, err: "flow b: client: b client: start in emu-x-cli: no such file", at: s1,
		},
		{
			name:    "deadline of duration-limited flows",
			flows:   []Flow{windowed("a", 0, 10*s1), windowed("b", 2*s1, 10*s1)},
			script:  join(steady(0, 0, 30*s1, 1e6), steady(1, 2*s1, 30*s1, 1e6)),
			outcome: Failed, err: "run did not end within its flows' duration plus run.grace (5s)", at: 17*s1 + 1,
		},
		{
			name:    "duration-limited flows end in time",
			flows:   []Flow{windowed("a", 0, 10*s1), windowed("b", 2*s1, 10*s1)},
			script:  join(steady(0, 0, 10*s1, 1e6), finish(10*s1+200*ms, 0, 1e7), steady(1, 2*s1, 12*s1, 1e6), finish(16*s1, 1, 1e7)),
			outcome: OK, at: 16 * s1,
		},
		{
			name:    "no deadline when a flow is size-limited",
			flows:   []Flow{windowed("a", 0, 2*s1), sized("b", 0, 1e9)},
			script:  join(steady(0, 0, 2*s1, 1e6), finish(2*s1, 0, 2e6), steady(1, 0, 30*s1, 1e6), finish(30*s1, 1, 1e9)),
			outcome: OK, at: 30 * s1,
		},
		{
			name:    "Ctrl-C",
			flows:   []Flow{sized("a", 0, 1e9)},
			script:  join(steady(0, 0, 10*s1, 1e6), one(outside(3*s1+10*ms, Interrupt, errInterrupted))),
			outcome: Interrupted, err: "run interrupted", at: 3*s1 + 10*ms,
		},
		{
			name:    "emulation failure",
			flows:   []Flow{sized("a", 0, 1e9)},
			script:  join(steady(0, 0, 10*s1, 1e6), one(outside(2*s1, EmulationFailed, errors.New("link1.down trace player: class change: no such device")))),
			outcome: Failed, err: "link1.down trace player: class change: no such device", at: 2 * s1,
		},
		{
			name:    "a failure before Ctrl-C at the same instant wins",
			flows:   []Flow{sized("a", 0, 1e9)},
			script:  []timed{outside(s1, Interrupt, errInterrupted), clientExit(s1, 0, "signal: killed")},
			outcome: Failed, err: "flow a: client signal: killed", at: s1,
		},
		{
			name:    "no flows",
			outcome: OK, at: 0,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, plan(grace, tc.flows...), tc.script...)
			if tc.startErr != nil {
				s.startErr = tc.startErr
			}
			s.runUntil(60 * s1)
			s.outcome(tc.outcome, tc.err, tc.at)
		})
	}
}

// TestErrorsWrap: an interrupt stays errors.Is the error it came with,
// and a client that could not start wraps its error.
func TestErrorsWrap(t *testing.T) {
	s := newSim(t, plan(5*s1, sized("a", 0, 1e9)), outside(s1, Interrupt, errInterrupted))
	s.runUntil(time.Minute)
	if _, err := s.run.End(); !errors.Is(err, errInterrupted) {
		t.Errorf("interrupt: %v", err)
	}
	s = newSim(t, plan(5*s1, sized("a", 0, 1e9)), outside(100*ms, Interrupt, errInterrupted))
	s.readyAfter = -1
	s.runUntil(time.Minute)
	s.outcome(Interrupted, "flow a: server: run interrupted", 100*ms)
	if _, err := s.run.End(); !errors.Is(err, errInterrupted) {
		t.Errorf("interrupt while the server starts: %v", err)
	}
	errStart := errors.New("exec format error")
	s = newSim(t, plan(5*s1, sized("a", 0, 1e9)))
	s.startErr["client 0"] = errStart
	s.runUntil(time.Minute)
	if _, err := s.run.End(); !errors.Is(err, errStart) {
		t.Errorf("client start: %v", err)
	}
}

// TestServers: servers start one after the other, each once the one before
// is ready, and the run fails naming the flow when one is not ready in
// time, exits first or cannot start.
func TestServers(t *testing.T) {
	flows := []Flow{sized("a", 0, 1e6), sized("b", 0, 1e6)}
	errStart := errors.New("b server: start in emu-x-srv: permission denied")
	for _, tc := range []struct {
		name     string
		script   []timed
		startErr map[string]error
		outcome  Outcome
		err      string
		at       time.Duration
		log      []string
	}{
		{
			name:    "not ready in time",
			script:  []timed{{200 * ms, Event{Kind: ServerReady, Flow: 0}}},
			outcome: Failed, err: "flow b: server: not ready after 15s", at: 15*s1 + 200*ms,
			log: []string{"0s start server 0", "200ms start server 1", "15.2s stop failed: flow b: server: not ready after 15s",
				"15.2s end server 0", "15.2s end server 1"},
		},
		{
			name:    "exits before it is ready",
			script:  []timed{serverExit(300*ms, 0, "exit status 1: listen udp 10.0.0.1:4433: bind: address already in use")},
			outcome: Failed, err: "flow a: server: exit status 1: listen udp 10.0.0.1:4433: bind: address already in use", at: 300 * ms,
			log: []string{"0s start server 0", "300ms stop failed: flow a: server: exit status 1: listen udp 10.0.0.1:4433: bind: address already in use"},
		},
		{
			name:     "cannot start",
			script:   []timed{{200 * ms, Event{Kind: ServerReady, Flow: 0}}},
			startErr: map[string]error{"server 1": errStart},
			outcome:  Failed, err: errStart.Error(), at: 200 * ms,
			log: []string{"0s start server 0", "200ms start server 1", "200ms stop failed: " + errStart.Error(),
				"200ms end server 0"},
		},
		{
			name:    "emulation failure",
			script:  []timed{outside(100*ms, EmulationFailed, errors.New("dcproxy: queue 1: closed"))},
			outcome: Failed, err: "dcproxy: queue 1: closed", at: 100 * ms,
			log: []string{"0s start server 0", "100ms stop failed: dcproxy: queue 1: closed", "100ms end server 0"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, plan(5*s1, flows...), tc.script...)
			s.readyAfter = -1
			if tc.startErr != nil {
				s.startErr = tc.startErr
			}
			s.runUntil(time.Minute)
			s.outcome(tc.outcome, tc.err, tc.at)
			equal(t, "log", s.log, tc.log)
			if len(s.samples) != 0 || s.run.Flow(0).Started {
				t.Errorf("flows began before the servers were ready: %d samples", len(s.samples))
			}
		})
	}
}

// TestShutdown: once the run is decided its clients are asked to end and
// killed after StopTimeout, then its servers likewise; what the clients
// report meanwhile still counts for the flows.
func TestShutdown(t *testing.T) {
	s := newSim(t, plan(5*s1, sized("a", 0, 1e9), sized("b", 0, 1e9), sized("c", 0, 1e6), sized("d", 10*s1, 1e6)),
		join(steady(0, 0, 2*s1, 1e6), steady(1, 0, 2*s1, 2e6), finish(500*ms, 2, 1e6),
			one(outside(2050*ms, Interrupt, errInterrupted)))...)
	s.hang["client 0"], s.hang["server 1"] = true, true
	s.runUntil(time.Minute)
	s.outcome(Interrupted, "run interrupted", 2050*ms)
	equal(t, "log", s.log, []string{
		"0s start server 0", "0s start server 1", "0s start server 2", "0s start server 3",
		"0s start client 0", "0s start client 1", "0s start client 2",
		"2.05s stop interrupted: run interrupted",
		"2.05s end client 0", "2.05s end client 1",
		"7.05s kill client 0",
		"7.05s end server 0", "7.05s end server 1", "7.05s end server 2", "7.05s end server 3",
		"12.05s kill server 1",
	})
	if s.el() != 12050*ms {
		t.Errorf("over at %v, want 12.05s", s.el())
	}
	for i, want := range []FlowState{
		{Started: true, Finished: true, Bytes: 2e6, Failure: "client signal: killed"},
		{Started: true, Finished: true, Bytes: 4e6, Done: &Done{Bytes: 4e6, Error: "interrupted"}},
		{Started: true, Finished: true, Bytes: 1e6, Done: &Done{Bytes: 1e6, Complete: true}},
		{},
	} {
		if got := s.run.Flow(i); !reflect.DeepEqual(got, want) {
			t.Errorf("flow %d: %+v, want %+v", i, got, want)
		}
	}
	if got := s.samples[len(s.samples)-1]; got != 2050*ms {
		t.Errorf("last sample at %v, want 2.05s (when the run was decided)", got)
	}
}

// TestFlowState: what the summary reads: the most bytes reported, the done
// report with its flow kind's own result, the sender's congestion control.
func TestFlowState(t *testing.T) {
	type rtt struct{ MinMs float64 }
	s := newSim(t, plan(5*s1, sized("a", 0, 3e6)),
		timed{0, Event{Kind: ServerAccept, Flow: 0, CC: "cubic"}},
		timed{10 * ms, Event{Kind: ServerAccept, Flow: 0}},
		progress(s1, 0, 2e6), progress(1500*ms, 0, 1e6),
		done(2*s1, 0, Done{Bytes: 3e6, Complete: true, Result: rtt{21.5}}), clientExit(2*s1, 0, "exited"))
	s.runUntil(time.Minute)
	s.outcome(OK, "", 2*s1)
	want := FlowState{Started: true, Finished: true, Bytes: 3e6, Done: &Done{Bytes: 3e6, Complete: true, Result: rtt{21.5}}, ServerCC: "cubic"}
	if got := s.run.Flow(0); !reflect.DeepEqual(got, want) {
		t.Errorf("flow: %+v, want %+v", got, want)
	}
}

// TestRunsAreIndependent: runs share nothing, so a sweep can step several
// at once in one goroutine each.
func TestRunsAreIndependent(t *testing.T) {
	a := newSim(t, plan(5*s1, sized("a", 0, 1e6)), finish(s1, 0, 1e6)...)
	b := newSim(t, plan(5*s1, sized("a", 0, 1e6)), outside(s1, Interrupt, errInterrupted))
	a.runUntil(500 * ms)
	b.runUntil(time.Minute)
	a.runUntil(time.Minute)
	a.outcome(OK, "", s1)
	b.outcome(Interrupted, "run interrupted", s1)
}

func TestActionString(t *testing.T) {
	for _, tc := range []struct {
		a    Action
		want string
	}{
		{Action{Kind: StartClient, Flow: 2}, "start client 2"},
		{Action{Kind: SampleLinks}, "sample"},
		{Action{Kind: PrintStatus, Line: "[   1.0s]"}, "status [   1.0s]"},
		{Action{Kind: Stop, Outcome: OK}, "stop ok"},
		{Action{Kind: Stop, Outcome: Failed, Err: errors.New("x")}, "stop failed: x"},
		{Action{Kind: 99}, "ActionKind(99)"},
	} {
		if got := tc.a.String(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
	if got := strings.Join([]string{ClientDone.String(), EventKind(0).String()}, ","); got != "client done,EventKind(0)" {
		t.Errorf("event kinds: %s", got)
	}
}
