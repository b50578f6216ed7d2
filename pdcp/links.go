package pdcp

import "time"

// Links is the set of links a scheduler sends a PDU on: link 0 ("link1" in
// results and configuration), link 1 ("link2"), or both (duplication).
type Links uint8

// The possible results of Scheduler.Pick.
const (
	Link0     Links = 1 << 0
	Link1     Links = 1 << 1
	BothLinks Links = Link0 | Link1
)

// Has reports whether link i (0 or 1) is in the set.
func (l Links) Has(i int) bool { return l&(1<<i) != 0 }

func (l Links) String() string {
	switch l {
	case Link0:
		return "link0"
	case Link1:
		return "link1"
	case BothLinks:
		return "both"
	}
	return "none"
}

// linkOf turns a link index into its Links value.
func linkOf(i int) Links { return Links(1) << i }

// LinkState is what the caller knows about one link now. Schedulers that
// adapt (smallest-delay, active-standby, adaptive) read it; the others ignore
// it. The zero value means "down or unknown".
type LinkState struct {
	// RateBps is the link's current rate in bit/s; 0 means the link is down
	// (an outage in the trace).
	RateBps float64
	// Delay is the link's one-way delay.
	Delay time.Duration
	// QueuedBytes estimates the bytes waiting in the link's queue now.
	QueuedBytes int
}

// up reports whether the link can carry traffic.
func (s LinkState) up() bool { return s.RateBps > 0 }
