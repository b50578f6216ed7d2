package pdcp

import (
	"fmt"
	"time"

	"github.com/dc-emu/emu/internal/durhist"
)

// Histogram counts durations in durhist's bins (exact below 32 µs, then
// within 3 %), as the delay lines count their lateness, so a hold time's
// p99 is read by the same rule as theirs. It never allocates and its zero
// value is ready to use.
type Histogram struct {
	Count uint64
	Sum   time.Duration
	Max   time.Duration
	bins  [durhist.Bins]uint64
}

// Add records one duration; negative durations count as 0.
func (h *Histogram) Add(d time.Duration) {
	d = max(d, 0)
	h.Count++
	h.Sum += d
	h.Max = max(h.Max, d)
	h.bins[durhist.Bin(d)]++
}

// Quantile returns the duration below which a fraction q (0..1) of the
// recorded values lie (durhist.Quantile: the nearest rank, from the middle
// of its bin, never above Max); 0 when nothing was recorded.
func (h *Histogram) Quantile(q float64) time.Duration {
	return durhist.Quantile(h.bins[:], h.Max, q)
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
