package results

import (
	"encoding/json"
	"math"
	"strconv"
)

// Stat summarizes one metric over repeated runs: one value per run, never
// samples pooled from inside runs (they are autocorrelated; metrics.md §5).
// CI95 is the half-width of the 95 % confidence interval of the mean,
// x̄ ± t(0.975, n−1)·s/√n. SD and CI95 are NaN (null in JSON) for n < 2.
// internal/stats computes it: results.Stat(stats.Summarize(values)).
type Stat struct {
	Mean float64
	SD   float64
	CI95 float64
	N    int
}

// Lo and Hi are the ends of the 95 % confidence interval.
func (s Stat) Lo() float64 { return s.Mean - s.CI95 }
func (s Stat) Hi() float64 { return s.Mean + s.CI95 }

// Text is the mean ± its CI95 with prec decimals for a table: the mean
// alone for fewer than two runs, "-" for none.
func (s Stat) Text(prec int) string {
	switch {
	case s.N == 0 || math.IsNaN(s.Mean):
		return "-"
	case s.N < 2 || math.IsNaN(s.CI95):
		return strconv.FormatFloat(s.Mean, 'f', prec, 64)
	}
	return strconv.FormatFloat(s.Mean, 'f', prec, 64) + " ± " + strconv.FormatFloat(s.CI95, 'f', prec, 64)
}

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
