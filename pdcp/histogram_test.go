package pdcp

import (
	"math"
	"testing"
	"time"
)

func TestHistogramQuantiles(t *testing.T) {
	var h Histogram
	if h.Quantile(0.5) != 0 || h.Mean() != 0 {
		t.Fatal("empty histogram should read 0")
	}
	// 1..1000 ms, one each: quantile q is about q × 1000 ms.
	for i := 1; i <= 1000; i++ {
		h.Add(time.Duration(i) * time.Millisecond)
	}
	for _, q := range []float64{0.01, 0.5, 0.95, 0.99} {
		want := q * 1000 * float64(time.Millisecond)
		got := float64(h.Quantile(q))
		if math.Abs(got-want)/want > 0.03 {
			t.Errorf("Quantile(%v) = %v, want %v ± 3%%", q, time.Duration(got), time.Duration(want))
		}
	}
	if h.Quantile(1) != time.Second || h.Max != time.Second {
		t.Errorf("Quantile(1) = %v, Max = %v; want 1s", h.Quantile(1), h.Max)
	}
	if p := h.Percentiles(); p.Max != time.Second || p.P50 != h.Quantile(0.5) || p.P95 != h.Quantile(0.95) || p.P99 != h.Quantile(0.99) {
		t.Errorf("Percentiles() = %+v", p)
	}
	if h.Mean() != 500500*time.Microsecond {
		t.Errorf("Mean = %v, want 500.5ms", h.Mean())
	}
}

func TestHistogramExactBinsAndZeros(t *testing.T) {
	var h Histogram
	for range 90 {
		h.Add(0) // delivered on arrival
	}
	for range 10 {
		h.Add(17 * time.Microsecond)
	}
	if got := h.Quantile(0.5); got != 0 {
		t.Errorf("p50 = %v, want 0", got)
	}
	if got := h.Quantile(0.95); got != 17*time.Microsecond {
		t.Errorf("p95 = %v, want 17µs exactly", got)
	}
	h.Add(-time.Second) // clock went backwards: counts as 0
	if h.Count != 101 || h.Max != 17*time.Microsecond {
		t.Errorf("count %d max %v", h.Count, h.Max)
	}
}

// A duration beyond durhist's bins is still read back exactly.
func TestHistogramOverflow(t *testing.T) {
	var h Histogram
	h.Add(time.Duration(math.MaxInt64))
	if h.Quantile(0.5) != time.Duration(math.MaxInt64) {
		t.Errorf("overflow bin quantile %v", h.Quantile(0.5))
	}
}
