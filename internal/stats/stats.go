package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Mean returns the arithmetic mean Σx/n of all of x, summed in order; NaN
// for no values, and NaN when any value is NaN (see MeanOmitNaN).
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// MeanOmitNaN returns the arithmetic mean of the values of x that are not
// NaN (summed in order, divided by how many there are); NaN when there are
// none.
func MeanOmitNaN(x []float64) float64 {
	var s float64
	n := 0
	for _, v := range x {
		if !math.IsNaN(v) {
			s += v
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// Summary is one metric over repeated runs: the mean, the sample standard
// deviation, the half-width of the 95 % confidence interval of the mean,
// and how many values they were computed from. emu/results.Stat has the
// same fields and writes them to files: results.Stat(s) converts.
type Summary struct {
	Mean float64
	SD   float64
	CI95 float64
	N    int
}

// Summarize returns the Summary of x (docs/metrics.md §5), one value per
// run: NaN values (a run that did not produce the metric) are left out and
// not counted in N. With n values left,
//
//	Mean = Σx / n                                (MeanOmitNaN)
//	SD   = √(Σ(x − Mean)² / (n − 1))             (the sample standard deviation)
//	CI95 = TQuantile975(n − 1) · SD / √n         (Student's t, two-sided 95 %)
//
// Mean is NaN for n = 0; SD and CI95 are NaN for n < 2.
func Summarize(x []float64) Summary {
	var n int
	var sum float64
	for _, v := range x {
		if !math.IsNaN(v) {
			n++
			sum += v
		}
	}
	st := Summary{Mean: math.NaN(), SD: math.NaN(), CI95: math.NaN(), N: n}
	if n == 0 {
		return st
	}
	st.Mean = sum / float64(n)
	if n < 2 {
		return st
	}
	var ss float64
	for _, v := range x {
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
// gonum's distribution, not a table: 12.706 for df 1, 2.776 for 4, 1.960 as
// df grows. It is NaN for df < 1.
func TQuantile975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
}

// CombinedHalfWidth returns √Σh², the half-width of the 95 % confidence
// interval of a sum or difference of independent means whose own intervals
// have half-widths h: the standard errors of independent estimates add in
// quadrature. It is an approximation that keeps each mean's own t factor
// (not Welch's degrees of freedom). NaN if any h is NaN.
func CombinedHalfWidth(h ...float64) float64 {
	s := 0.0
	for _, c := range h {
		if math.IsNaN(c) {
			return math.NaN()
		}
		s += c * c
	}
	return math.Sqrt(s)
}

// Percentile returns the p-th percentile of x by the nearest-rank method,
// without interpolation: the smallest value with at least p % of the values
// at or below it, the value of rank ⌈p/100 · n⌉ (1-based) in sorted order.
// It is always one of the values: p ≤ 100/n gives the smallest, p ≥ 100 the
// largest, and p ≤ 0 is read as the smallest too. It sorts a copy of x
// (NaN values sort first, as slices.Sort puts them); NaN for no values or a
// NaN p.
func Percentile(x []float64, p float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return PercentileSorted(s, p)
}

// PercentileSorted is Percentile of x already sorted in increasing order,
// which it neither copies nor checks: for callers that sort a large sample
// once and read several percentiles from it.
func PercentileSorted(sorted []float64, p float64) float64 {
	if len(sorted) == 0 || math.IsNaN(p) {
		return math.NaN()
	}
	p = min(max(p, 0), 100) // keep the rank in range and the conversion to int defined
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// JFI returns Jain's fairness index (Σx)² / (n·Σx²) of the allocations x
// (docs/metrics.md §1): 1 when all are equal, k/n when k share equally and
// the others get nothing, 1/n when one takes everything; scaling x does not
// change it. It is NaN for no allocations or when all are zero (no share to
// compare). Negative or NaN allocations make it NaN too.
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
