package runloop

import "fmt"

// ActionKind says what the caller is to do.
type ActionKind uint8

// Actions of a run. Flow names the flow of the Start*, End* and Kill*
// actions.
const (
	// StartServer: start the flow's server and answer with a ServerStarted
	// event before the next Step.
	StartServer ActionKind = iota + 1
	// StartClient: start the flow's client and answer with a ClientStarted
	// event before the next Step.
	StartClient
	// SampleLinks: read the links' counters now.
	SampleLinks
	// PrintStatus: print Line, the live line.
	PrintStatus
	// Stop: the run's outcome is decided (Outcome, Err); the endpoints are
	// stopped next.
	Stop
	// EndClient: ask the client to end (SIGINT: it reports what it
	// measured and exits).
	EndClient
	// KillClient: kill the client; it did not end in time.
	KillClient
	// EndServer: ask the server to end (SIGTERM).
	EndServer
	// KillServer: kill the server; it did not end in time.
	KillServer
)

// Action is one thing the caller is to do now.
type Action struct {
	Kind    ActionKind
	Flow    int
	Line    string  // PrintStatus
	Outcome Outcome // Stop
	Err     error   // Stop: nil when Outcome is OK
}

var actionNames = [...]string{
	StartServer: "start server",
	StartClient: "start client",
	SampleLinks: "sample",
	PrintStatus: "status",
	Stop:        "stop",
	EndClient:   "end client",
	KillClient:  "kill client",
	EndServer:   "end server",
	KillServer:  "kill server",
}

func (k ActionKind) String() string { return kindName(actionNames[:], int(k), "ActionKind") }

// String reads like a log line: "start client 1", "stop failed: …".
func (a Action) String() string {
	switch a.Kind {
	case StartServer, StartClient, EndClient, KillClient, EndServer, KillServer:
		return fmt.Sprintf("%v %d", a.Kind, a.Flow)
	case PrintStatus:
		return "status " + a.Line
	case Stop:
		if a.Err != nil {
			return fmt.Sprintf("stop %v: %v", a.Outcome, a.Err)
		}
		return fmt.Sprintf("stop %v", a.Outcome)
	}
	return a.Kind.String()
}

// Outcome is how a run ended.
type Outcome uint8

const (
	// Undecided: the run goes on.
	Undecided Outcome = iota
	// OK: every flow finished.
	OK
	// Failed: a flow, an endpoint or the emulation failed, or the run
	// overran its deadline.
	Failed
	// Interrupted: the run was stopped from outside.
	Interrupted
)

func (o Outcome) String() string {
	switch o {
	case Undecided:
		return "undecided"
	case OK:
		return "ok"
	case Failed:
		return "failed"
	case Interrupted:
		return "interrupted"
	}
	return fmt.Sprintf("Outcome(%d)", o)
}
