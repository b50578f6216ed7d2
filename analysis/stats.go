package analysis

import (
	"encoding/json"
	"math"
	"sort"
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

// Stat summarizes one metric over repeated runs: one value per run, never
// samples pooled from inside runs (they are autocorrelated; metrics.md §5).
// CI95 is the half-width of the 95 % confidence interval of the mean,
// x̄ ± t(0.975, n−1)·s/√n. SD and CI95 are NaN (null in JSON) for n < 2.
type Stat struct {
	Mean float64
	SD   float64
	CI95 float64
	N    int
}

// Summarize returns the mean, sample standard deviation and 95 % CI
// half-width of values. NaN values (a run that did not produce the metric)
// are left out and not counted in N.
func Summarize(values []float64) Stat {
	var n int
	var sum float64
	for _, v := range values {
		if !math.IsNaN(v) {
			n++
			sum += v
		}
	}
	st := Stat{Mean: math.NaN(), SD: math.NaN(), CI95: math.NaN(), N: n}
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

// Lo and Hi are the ends of the 95 % confidence interval.
func (s Stat) Lo() float64 { return s.Mean - s.CI95 }
func (s Stat) Hi() float64 { return s.Mean + s.CI95 }

// MarshalJSON writes {"mean","sd","ci95","n"} with null for NaN.
func (s Stat) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Mean *float64 `json:"mean"`
		SD   *float64 `json:"sd"`
		CI95 *float64 `json:"ci95"`
		N    int      `json:"n"`
	}{finite(s.Mean), finite(s.SD), finite(s.CI95), s.N})
}

// UnmarshalJSON reads what MarshalJSON writes (null becomes NaN).
func (s *Stat) UnmarshalJSON(b []byte) error {
	var v struct {
		Mean, SD, CI95 *float64
		N              int
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	val := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	*s = Stat{Mean: val(v.Mean), SD: val(v.SD), CI95: val(v.CI95), N: v.N}
	return nil
}

// finite returns a pointer to v, or nil when v is NaN or infinite, for JSON
// fields that must be null rather than a number no parser accepts.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// tTable holds t(0.975, df) for df = 1..30 (two-sided 95 %).
var tTable = [...]float64{
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
}

// tLarge continues the table for larger df; between rows the quantile is
// interpolated linearly in 1/df, which is exact to the third decimal.
var tLarge = [...]struct {
	df int
	t  float64
}{{30, 2.042}, {40, 2.021}, {60, 2.000}, {120, 1.980}}

// TQuantile975 returns the 0.975 quantile of Student's t distribution with
// df degrees of freedom (the factor of a two-sided 95 % interval). It is
// NaN for df < 1.
func TQuantile975(df int) float64 {
	switch {
	case df < 1:
		return math.NaN()
	case df <= len(tTable):
		return tTable[df-1]
	}
	for k := 1; k < len(tLarge); k++ {
		if df <= tLarge[k].df {
			a, b := tLarge[k-1], tLarge[k]
			f := (1/float64(a.df) - 1/float64(df)) / (1/float64(a.df) - 1/float64(b.df))
			return a.t + f*(b.t-a.t)
		}
	}
	last := tLarge[len(tLarge)-1]
	const z = 1.959964 // df → ∞
	f := float64(last.df) / float64(df)
	return z + f*(last.t-z)
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
