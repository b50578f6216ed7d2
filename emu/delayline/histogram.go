package delayline

import (
	"sync/atomic"
	"time"

	"github.com/dc-emu/emu/internal/durhist"
)

// Histogram counts durations in durhist's bins (exact below 32 µs, then
// within 3 %, up to 25 days), as the PDCP receiver counts its hold times,
// and the exact largest duration. Add is safe from one writer while others
// read.
type Histogram struct {
	bins  [durhist.Bins]atomic.Uint64
	count atomic.Uint64
	sum   atomic.Int64 // ns
	max   atomic.Int64 // ns
}

// Add records one duration; a negative one counts as 0.
func (h *Histogram) Add(d time.Duration) {
	d = max(d, 0)
	h.bins[durhist.Bin(d)].Add(1)
	h.count.Add(1)
	h.sum.Add(int64(d))
	// One writer: no other Add can raise max between the load and the store.
	if int64(d) > h.max.Load() {
		h.max.Store(int64(d))
	}
}

// HistogramSnapshot is a copy of a Histogram at one moment.
type HistogramSnapshot struct {
	Bins  [durhist.Bins]uint64
	Count uint64
	Sum   time.Duration
	// Max is the largest duration recorded, exactly.
	Max time.Duration
}

// Snapshot copies the histogram.
func (h *Histogram) Snapshot() HistogramSnapshot {
	var s HistogramSnapshot
	for i := range h.bins {
		s.Bins[i] = h.bins[i].Load()
	}
	s.Count = h.count.Load()
	s.Sum = time.Duration(h.sum.Load())
	s.Max = time.Duration(h.max.Load())
	return s
}

// Quantile returns the duration below which a fraction q (0..1) of the
// recorded durations lie (durhist.Quantile: the nearest rank, from the
// middle of its bin above 32 µs, never above Max; Quantile(1) is Max); 0
// when empty.
func (s *HistogramSnapshot) Quantile(q float64) time.Duration {
	return durhist.Quantile(s.Bins[:], s.Max, q)
}

// Mean returns the mean of the recorded durations; 0 when empty.
func (s *HistogramSnapshot) Mean() time.Duration {
	if s.Count == 0 {
		return 0
	}
	return s.Sum / time.Duration(s.Count)
}
