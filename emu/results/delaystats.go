package results

import (
	"math"
	"slices"

	"github.com/dc-emu/emu/internal/stats"
)

// DelayStats summarises delays of one flow or one link direction over a
// run, in milliseconds: the nearest-rank percentiles p50, p95 and p99 (the
// smallest sample with at least p % of the samples at or below it,
// stats.Percentile), the largest and the mean sample, and how many samples
// there were.
type DelayStats struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
	N    int     `json:"n"`
}

// SummarizeDelays returns the statistics of ms (milliseconds; NaN samples
// are left out) and false if there is no sample. It sorts ms in place:
// the caller's sample buffer may be large and is not copied.
func SummarizeDelays(ms []float64) (DelayStats, bool) {
	ms = slices.DeleteFunc(ms, math.IsNaN)
	if len(ms) == 0 {
		return DelayStats{}, false
	}
	slices.Sort(ms)
	return DelayStats{
		P50:  stats.PercentileSorted(ms, 50),
		P95:  stats.PercentileSorted(ms, 95),
		P99:  stats.PercentileSorted(ms, 99),
		Max:  ms[len(ms)-1],
		Mean: stats.Mean(ms), // summed in sorted order
		N:    len(ms),
	}, true
}
