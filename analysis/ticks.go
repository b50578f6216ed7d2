package analysis

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// niceTicks labels about 10 major ticks at steps of 1, 2 or 5 × 10^k,
// with unlabelled minor ticks between them. gonum's default ticker often
// labels only three values on a wide plot, which makes times hard to read.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := niceStep((hi - lo) / 10)
	minor := step / 5
	if m := step / math.Pow(10, math.Floor(math.Log10(step))); m > 1.5 && m < 2.5 {
		minor = step / 2
	}
	prec := max(0, -int(math.Floor(math.Log10(step)))+1)
	var ticks []plot.Tick
	start := math.Ceil(lo/minor-1e-9) * minor
	for k := 0; ; k++ {
		v := start + float64(k)*minor
		if v > hi+minor*1e-9 || k > 1000 {
			break
		}
		t := plot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			t.Label = strconv.FormatFloat(math.Round(v*math.Pow(10, float64(prec)))/math.Pow(10, float64(prec)), 'f', -1, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// niceStep rounds a raw step up to 1, 2 or 5 × 10^k.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p*1.0000001 {
			return m * p
		}
	}
	return 10 * p
}
