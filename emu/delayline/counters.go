package delayline

import (
	"sync/atomic"
	"time"
)

// Counters are a line's running totals, written by its loop and readable
// from any goroutine at any time (a run samples them every 100 ms).
type Counters struct {
	In, InBytes             atomic.Uint64 // packets and bytes that arrived
	Lost                    atomic.Uint64 // dropped by the loss model
	Released, ReleasedBytes atomic.Uint64 // accepted at their due time
	Backlog, BacklogBytes   atomic.Int64  // held now (lost ones included until dropped)
	// FIFOHeld counts packets that left later than their own delay said,
	// behind an earlier packet due later (order-preserving mode): how
	// often the link's order bound as its delay fell.
	FIFOHeld atomic.Uint64
	// Late is the release time minus the due time of every released
	// packet: the line's own precision, measured.
	Late Histogram
	// ReadLag is how long packets waited in the kernel before the loop
	// read them: the time of reading minus the kernel's receive timestamp.
	// Only packets the kernel stamped are counted (see Loop).
	ReadLag Histogram
	// peak is the largest lateness since the last TakePeak, in ns: when
	// in a run the line fell behind, which Late's distribution cannot say.
	peak atomic.Int64
}

// TakePeak returns the largest release lateness since the previous call
// (or the line's start) and starts the next interval. A release racing
// with the call can land in either interval.
func (c *Counters) TakePeak() time.Duration { return time.Duration(c.peak.Swap(0)) }

func (c *Counters) out(size uint32) {
	c.Backlog.Add(-1)
	c.BacklogBytes.Add(-int64(size))
}

func (c *Counters) release(size uint32, late time.Duration) {
	c.out(size)
	c.Released.Add(1)
	c.ReleasedBytes.Add(uint64(size))
	c.Late.Add(late)
	// One writer: a load per packet, a store when the interval's peak
	// grows. BenchmarkLineRelease (an arrival and its release, no kernel)
	// took 156–253 ns without it and 167–260 ns with it, in alternating
	// sets of six on the 2-core development VM: within its noise.
	if int64(late) > c.peak.Load() {
		c.peak.Store(int64(late))
	}
}

// Snapshot is a copy of Counters, plus the kernel queue's own drops when
// taken through a Loop.
type Snapshot struct {
	In, InBytes             uint64
	Lost                    uint64
	Released, ReleasedBytes uint64
	Backlog, BacklogBytes   int64
	FIFOHeld                uint64
	// Overflow counts packets the kernel dropped before the line saw them:
	// its queue was full (MaxQueueLen) or the socket buffer overflowed.
	Overflow uint64
	Late     HistogramSnapshot
	ReadLag  HistogramSnapshot
}

// Snapshot copies the counters.
func (c *Counters) Snapshot() Snapshot {
	return Snapshot{
		In: c.In.Load(), InBytes: c.InBytes.Load(), Lost: c.Lost.Load(),
		Released: c.Released.Load(), ReleasedBytes: c.ReleasedBytes.Load(),
		Backlog: c.Backlog.Load(), BacklogBytes: c.BacklogBytes.Load(), FIFOHeld: c.FIFOHeld.Load(),
		Late: c.Late.Snapshot(), ReadLag: c.ReadLag.Snapshot(),
	}
}
