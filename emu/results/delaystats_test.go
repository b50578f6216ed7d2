package results

import (
	"encoding/json"
	"math"
	"testing"
)

func TestSummarizeDelays(t *testing.T) {
	if _, ok := SummarizeDelays(nil); ok {
		t.Error("stats of no samples")
	}
	if _, ok := SummarizeDelays([]float64{math.NaN()}); ok {
		t.Error("stats of a NaN sample")
	}
	// 1..100 shuffled: nearest rank gives the p-th value itself.
	ms := make([]float64, 100)
	for i := range ms {
		ms[i] = float64((i*37)%100 + 1)
	}
	ms = append(ms, math.NaN())
	st, ok := SummarizeDelays(ms)
	want := DelayStats{P50: 50, P95: 95, P99: 99, Max: 100, Mean: 50.5, N: 100}
	if !ok || st != want {
		t.Errorf("got %+v, want %+v", st, want)
	}
	st, _ = SummarizeDelays([]float64{7})
	if st != (DelayStats{P50: 7, P95: 7, P99: 7, Max: 7, Mean: 7, N: 1}) {
		t.Errorf("one sample: %+v", st)
	}
	b, _ := json.Marshal(st)
	if string(b) != `{"p50":7,"p95":7,"p99":7,"max":7,"mean":7,"n":1}` {
		t.Errorf("json %s", b)
	}
}
