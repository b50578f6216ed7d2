package pdcp

import (
	"fmt"
	"math/bits"
	"time"
)

// Histogram counts durations in fixed log-spaced bins of microseconds:
// exact below 32 µs, then 16 bins per power of two (bins 1/16 wide, so a
// quantile read from the bin's middle is within 3%); values of 2^41 µs
// (25 days) and more share one overflow bin. It never allocates and its zero
// value is ready to use.
type Histogram struct {
	Count uint64
	Sum   time.Duration
	Max   time.Duration
	bins  [histBins]uint64
}

const (
	histLinear = 32                         // bins 0..31 hold 0..31 µs exactly
	histSub    = 16                         // bins per power of two above that
	histMaxExp = 36                         // values below 32<<36 µs = 2^41 µs keep their own bin
	histBins   = histSub*(histMaxExp+2) + 1 // last: overflow
)

// Add records one duration; negative durations count as 0.
func (h *Histogram) Add(d time.Duration) {
	d = max(d, 0)
	h.Count++
	h.Sum += d
	h.Max = max(h.Max, d)
	h.bins[histBin(uint64(d/time.Microsecond))]++
}

// histBin returns the bin of v µs.
func histBin(v uint64) int {
	if v < histLinear {
		return int(v)
	}
	e := bits.Len64(v) - 5 // v>>e is in [16, 31]
	if e > histMaxExp {
		return histBins - 1
	}
	return histSub*e + int(v>>e)
}

// binMid returns the middle of bin b in µs (its value for exact bins).
func binMid(b int) float64 {
	if b < histLinear {
		return float64(b)
	}
	e := b/histSub - 1
	lo := uint64(b%histSub+histSub) << e
	return float64(lo) + float64(uint64(1)<<e)/2
}

// Quantile returns the duration below which a fraction q (0..1) of the
// recorded values lie, read from the middle of its bin and never above Max;
// 0 when nothing was recorded.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.Count == 0 {
		return 0
	}
	rank := uint64(q * float64(h.Count))
	if float64(rank) < q*float64(h.Count) {
		rank++ // ceil
	}
	rank = min(max(rank, 1), h.Count)
	if rank == h.Count {
		return h.Max // the largest value is known exactly
	}
	var seen uint64
	for b, n := range h.bins {
		seen += n
		if seen >= rank {
			if b == histBins-1 {
				return h.Max
			}
			return min(time.Duration(binMid(b)*float64(time.Microsecond)), h.Max)
		}
	}
	return h.Max
}

// Percentiles are the summary the results report ("added delay").
type Percentiles struct {
	P50, P95, P99, Max time.Duration
}

// Percentiles returns p50, p95, p99 and the maximum.
func (h *Histogram) Percentiles() Percentiles {
	return Percentiles{P50: h.Quantile(0.50), P95: h.Quantile(0.95), P99: h.Quantile(0.99), Max: h.Max}
}

// String summarises the histogram (value receiver so %+v of a struct holding
// one prints the summary, not 609 bins).
func (h Histogram) String() string {
	return fmt.Sprintf("{n=%d mean=%v p50=%v p99=%v max=%v}", h.Count, h.Mean(), h.Quantile(0.5), h.Quantile(0.99), h.Max)
}

// Mean returns the average recorded duration, 0 when nothing was recorded.
func (h *Histogram) Mean() time.Duration {
	if h.Count == 0 {
		return 0
	}
	return h.Sum / time.Duration(h.Count)
}
