package dcproxy

import (
	"time"

	"github.com/dc-emu/emu/pdcp"
)

// VerdictLatency is how long the transmit proxy kept packets waiting: for
// each packet, from the kernel's receive timestamp (the packet entered the
// gateway's namespace and was queued) to the write of the verdict batch
// that answered it. It includes the time the packet sat in the NFQUEUE
// before the loop read it, which is where a stalled loop shows.
//
// The receive proxy has none: its packets' stamps are taken on arrival in
// the client's gateway, before the delay line holds them for the link's
// delay, and the time it holds them itself is pdcp.RxCounters.HoldTime.
type VerdictLatency struct {
	pdcp.Histogram
	// Unstamped counts packets without a usable stamp: none (no socket
	// asked for timestamps) or one that would make the latency negative
	// or longer than maxVerdictLag (the wall clock stepped).
	Unstamped uint64
}

// maxVerdictLag is the longest latency believed; longer means the wall
// clock (which the kernel stamps with) stepped. It is far above any stall
// worth measuring: the artefact this histogram was made to find kept
// packets hundreds of milliseconds.
const maxVerdictLag = 10 * time.Second

// add records the latency of a packet the kernel stamped at stamp (zero:
// not stamped) whose verdict was written at now. stamp carries no
// monotonic reading, so the two are compared as wall-clock times.
func (v *VerdictLatency) add(now, stamp time.Time) {
	if stamp.IsZero() {
		v.Unstamped++
		return
	}
	d := now.Sub(stamp)
	if d < 0 || d > maxVerdictLag {
		v.Unstamped++
		return
	}
	v.Histogram.Add(d)
}

// QueueStats are the kernel's counters of a proxy's NFQUEUE, sampled by
// the proxy's loop when it publishes its counters (every 50 ms).
type QueueStats struct {
	// HeldMax is the largest number of packets waiting for a verdict at a
	// sample. The receive proxy's include the packets it holds for
	// reordering.
	HeldMax uint32
	// Dropped counts packets the kernel dropped before the proxy saw them:
	// the queue was full, or its socket's receive buffer overflowed.
	Dropped uint64
	// Errors counts samples that could not be read.
	Errors uint64
}

// sample folds one reading of the kernel's counters into s.
func (s *QueueStats) sample(held, queueDropped, userDropped uint32, err error) {
	if err != nil {
		s.Errors++
		return
	}
	s.HeldMax = max(s.HeldMax, held)
	s.Dropped = uint64(queueDropped) + uint64(userDropped)
}
