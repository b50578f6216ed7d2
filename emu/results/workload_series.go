package results

import (
	"math"
	"time"
)

// BinMeans averages values by the bin of their time: bin k of width w
// holds times in (k·w, (k+1)·w], as timeseries.csv's rows do (t_s is the
// end of a bin), and time 0 falls in bin 0; times before 0 count nowhere.
// It returns bins means, NaN where no value fell. Every column of
// timeseries.csv that averages samples bins them here.
func BinMeans(at []time.Duration, values []float64, bins int, w time.Duration) []float64 {
	sum := make([]float64, bins)
	n := make([]int, bins)
	for i, t := range at {
		if t < 0 {
			continue
		}
		k := 0
		if t > 0 {
			k = int((t - 1) / w)
		}
		if k >= bins || math.IsNaN(values[i]) {
			continue
		}
		sum[k] += values[i]
		n[k]++
	}
	for k := range sum {
		if n[k] == 0 {
			sum[k] = math.NaN()
		} else {
			sum[k] /= float64(n[k])
		}
	}
	return sum
}
