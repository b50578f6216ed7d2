package runloop

import (
	"fmt"
	"time"
)

// EventKind says what happened.
type EventKind uint8

// Events of a run. Flow names the flow for all but Interrupt and
// EmulationFailed.
const (
	// ServerStarted answers a StartServer action; Err is set when the
	// server could not be started.
	ServerStarted EventKind = iota + 1
	// ServerReady: the server listens.
	ServerReady
	// ServerAccept: the server accepted a connection; CC is the congestion
	// control it uses (the sender's), if it says.
	ServerAccept
	// ServerExited: the server process has ended; Exit says how.
	ServerExited
	// ClientStarted answers a StartClient action; Err is set when the
	// client could not be started.
	ClientStarted
	// ClientProgress: the client has received Bytes in all so far.
	ClientProgress
	// ClientDone: the client's report of how the flow ended, in Done.
	ClientDone
	// ClientExited: the client process has ended (after its done event, if
	// it sent one); Exit says how.
	ClientExited
	// Interrupt: the run was stopped from outside (Ctrl-C); Err is what the
	// run returns (wrapped when it names a flow).
	Interrupt
	// EmulationFailed: the emulation under the run failed; Err says how.
	EmulationFailed
)

// Event is one thing that happened to a run, at At.
type Event struct {
	Kind  EventKind
	Flow  int
	At    time.Time
	Bytes int64  // ClientProgress
	Done  Done   // ClientDone
	CC    string // ServerAccept
	Exit  string // ServerExited, ClientExited: exit status and last lines of stderr
	Err   error  // ServerStarted, ClientStarted (failed), Interrupt, EmulationFailed
}

// Done is a client's report of how its flow ended.
type Done struct {
	Bytes int64
	// Complete: the flow did all it was asked to (every byte, or its whole
	// window).
	Complete bool
	// Error is the client's own error; "interrupted" when it was asked to
	// end, which is not a failure.
	Error string
	// Result is the flow kind's own report (for a download, the endpoint's
	// done event), kept for the summary; the run loop does not read it.
	Result any
}

// interrupted is the error a client reports when it was asked to end.
const interrupted = "interrupted"

var eventNames = [...]string{
	ServerStarted:   "server started",
	ServerReady:     "server ready",
	ServerAccept:    "server accept",
	ServerExited:    "server exited",
	ClientStarted:   "client started",
	ClientProgress:  "client progress",
	ClientDone:      "client done",
	ClientExited:    "client exited",
	Interrupt:       "interrupt",
	EmulationFailed: "emulation failed",
}

func (k EventKind) String() string { return kindName(eventNames[:], int(k), "EventKind") }

// kindName is names[k], or typ(k) for a kind without a name.
func kindName(names []string, k int, typ string) string {
	if k >= 0 && k < len(names) && names[k] != "" {
		return names[k]
	}
	return fmt.Sprintf("%s(%d)", typ, k)
}
