package delayline

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Histogram counts durations in fixed bins: 1 µs wide below 128 µs, then
// eight bins per power of two (12.5 % wide) up to about 17 minutes, and the
// exact largest duration. Add is safe from one writer while others read.
type Histogram struct {
	bins  [histBins]atomic.Uint64
	count atomic.Uint64
	sum   atomic.Int64 // ns
	max   atomic.Int64 // ns
}

const (
	histLinear = 128
	histBins   = histLinear + 8*24
)

func histIndex(d time.Duration) int {
	if d < 0 {
		d = 0
	}
	u := uint64(d / time.Microsecond)
	if u < histLinear {
		return int(u)
	}
	l := bits.Len64(u) // ≥ 8
	i := histLinear + 8*(l-8) + int((u>>(l-4))&7)
	return min(i, histBins-1)
}

// histUpper is the upper edge of bin i.
func histUpper(i int) time.Duration {
	if i < histLinear {
		return time.Duration(i+1) * time.Microsecond
	}
	k := i - histLinear
	l := k/8 + 8
	sub := uint64(k % 8)
	u := (8 + sub + 1) << (l - 4)
	return time.Duration(u) * time.Microsecond
}

// Add records one duration.
func (h *Histogram) Add(d time.Duration) {
	h.bins[histIndex(d)].Add(1)
	h.count.Add(1)
	h.sum.Add(int64(d))
	// One writer: no other Add can raise max between the load and the store.
	if int64(d) > h.max.Load() {
		h.max.Store(int64(d))
	}
}

// HistogramSnapshot is a copy of a Histogram at one moment.
type HistogramSnapshot struct {
	Bins  [histBins]uint64
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
// recorded durations lie, read from the middle of its bin (within 6.25 %
// above 128 µs) and never above Max; Quantile(1) is Max, exactly; 0 when
// empty. The middle, as pdcp.Histogram reads its quantiles, and not the
// upper edge: an edge is a bias, and a p99 anywhere in (480, 512] µs read
// as 0.512 ms failed the fidelity verdict's 0.5 ms floor (4 of the 10
// degraded attempts of a 54-run preset here, each a 1.5–3 minute run).
func (s *HistogramSnapshot) Quantile(q float64) time.Duration {
	var total uint64
	for _, c := range s.Bins {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := uint64(q*float64(total-1)) + 1
	if rank >= total {
		return s.Max
	}
	var cum uint64
	for i, c := range s.Bins {
		cum += c
		if cum >= rank {
			lo := time.Duration(0)
			if i > 0 {
				lo = histUpper(i - 1)
			}
			return min(lo+(histUpper(i)-lo)/2, s.Max)
		}
	}
	return s.Max
}

// Mean returns the mean of the recorded durations; 0 when empty.
func (s *HistogramSnapshot) Mean() time.Duration {
	if s.Count == 0 {
		return 0
	}
	return s.Sum / time.Duration(s.Count)
}
