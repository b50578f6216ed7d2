package results

import (
	"math"
	"slices"
)

// DelayStats summarises delays of one flow or one link direction over a
// run, in milliseconds: the nearest-rank percentiles p50, p95 and p99 (the
// smallest sample with at least p % of the samples at or below it, as
// analysis.Percentile computes them), the largest and the mean sample, and
// how many samples there were.
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
	var sum float64
	for _, v := range ms {
		sum += v
	}
	return DelayStats{
		P50:  nearestRank(ms, 50),
		P95:  nearestRank(ms, 95),
		P99:  nearestRank(ms, 99),
		Max:  ms[len(ms)-1],
		Mean: sum / float64(len(ms)),
		N:    len(ms),
	}, true
}

// nearestRank is the p-th percentile of sorted, non-empty s.
func nearestRank(s []float64, p float64) float64 {
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}
