package analysis

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dc-emu/emu/emu/results"
)

// JFI returns Jain's fairness index (Σx)² / (n·Σx²) of the allocations x
// (metrics.md §1): 1 when all are equal, 1/n when one takes everything.
// It is NaN for no allocations or when all are zero (no share to compare).
// Negative or NaN allocations make it NaN too.
func JFI(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var sum, sumSq float64
	for _, v := range x {
		if v < 0 || math.IsNaN(v) {
			return math.NaN()
		}
		sum += v
		sumSq += v * v
	}
	if sumSq == 0 {
		return math.NaN()
	}
	return sum * sum / (float64(len(x)) * sumSq)
}

// Summarize returns the mean, sample standard deviation and 95 % CI
// half-width of values. NaN values (a run that did not produce the metric)
// are left out and not counted in N.
func Summarize(values []float64) results.Stat {
	var n int
	var sum float64
	for _, v := range values {
		if !math.IsNaN(v) {
			n++
			sum += v
		}
	}
	st := results.Stat{Mean: math.NaN(), SD: math.NaN(), CI95: math.NaN(), N: n}
	if n == 0 {
		return st
	}
	st.Mean = sum / float64(n)
	if n < 2 {
		return st
	}
	var ss float64
	for _, v := range values {
		if !math.IsNaN(v) {
			d := v - st.Mean
			ss += d * d
		}
	}
	st.SD = math.Sqrt(ss / float64(n-1))
	st.CI95 = TQuantile975(n-1) * st.SD / math.Sqrt(float64(n))
	return st
}

// TQuantile975 returns the 0.975 quantile of Student's t distribution with
// df degrees of freedom (the factor of a two-sided 95 % interval), from
// gonum's distribution, not a table. It is NaN for df < 1.
func TQuantile975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
}

// Percentile returns the p-th percentile (0 < p ≤ 100) of values by the
// nearest-rank method: the smallest value with at least p % of the values
// at or below it. It sorts a copy; NaN for no values.
func Percentile(values []float64, p float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

// Mean returns the arithmetic mean, NaN for no values.
func Mean(values []float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range values {
		s += v
	}
	return s / float64(len(values))
}
