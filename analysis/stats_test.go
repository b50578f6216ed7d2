package analysis

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

func TestJFIWorkedExamples(t *testing.T) {
	cases := []struct {
		name string
		x    []float64
		want float64
	}{
		{"metrics.md 10/20/30", []float64{10, 20, 30}, 3600.0 / 4200.0},
		{"equal shares", []float64{20, 20, 20}, 1},
		{"one of three takes all", []float64{60, 0, 0}, 1.0 / 3},
		{"one of five takes all", []float64{0, 0, 7, 0, 0}, 1.0 / 5},
		{"two of four share equally", []float64{5, 0, 5, 0}, 2.0 / 4},
		{"single flow", []float64{34.8}, 1},
		{"scale invariant", []float64{1, 2, 3}, 3600.0 / 4200.0},
	}
	for _, c := range cases {
		if got := JFI(c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: JFI(%v) = %v, want %v", c.name, c.x, got, c.want)
		}
	}
	if got := JFI([]float64{10, 20, 30}); math.Round(got*1000)/1000 != 0.857 {
		t.Errorf("10/20/30 rounds to %.3f, metrics.md says 0.857", got)
	}
	for _, x := range [][]float64{nil, {0, 0}, {1, -1}, {math.NaN(), 1}} {
		if got := JFI(x); !math.IsNaN(got) {
			t.Errorf("JFI(%v) = %v, want NaN", x, got)
		}
	}
}

func TestSummarizeWorkedExample(t *testing.T) {
	// metrics.md §5: 48.2, 51.0, 49.5, 50.3, 47.9 → 49.38, s = 1.329,
	// half-width 1.650, CI [47.73, 51.03]. The worked example takes t from
	// a three-decimal table (2.776); the exact quantile gives 1.6505.
	st := Summarize([]float64{48.2, 51.0, 49.5, 50.3, 47.9})
	round := func(v float64, d int) float64 { p := math.Pow(10, float64(d)); return math.Round(v*p) / p }
	if st.N != 5 || round(st.Mean, 2) != 49.38 || round(st.SD, 3) != 1.329 || math.Abs(st.CI95-1.650) > 0.001 ||
		round(st.Lo(), 2) != 47.73 || round(st.Hi(), 2) != 51.03 {
		t.Errorf("Summarize = %+v (CI [%.3f, %.3f]), want mean 49.38, sd 1.329, ±1.650, [47.73, 51.03]", st, st.Lo(), st.Hi())
	}
	one := Summarize([]float64{3, math.NaN()})
	if one.N != 1 || one.Mean != 3 || !math.IsNaN(one.SD) || !math.IsNaN(one.CI95) {
		t.Errorf("one value: %+v", one)
	}
	b, err := json.Marshal(one)
	if err != nil || string(b) != `{"mean":3,"sd":null,"ci95":null,"n":1}` {
		t.Errorf("JSON %s, %v", b, err)
	}
	var back results.Stat
	if err := json.Unmarshal(b, &back); err != nil || back.Mean != 3 || !math.IsNaN(back.SD) || back.N != 1 {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	if none := Summarize(nil); none.N != 0 || !math.IsNaN(none.Mean) {
		t.Errorf("no values: %+v", none)
	}
}

func TestTQuantile(t *testing.T) {
	// The table in metrics.md §5, which is rounded to three decimals.
	for df, want := range map[int]float64{2: 4.303, 4: 2.776, 9: 2.262, 14: 2.145, 19: 2.093, 29: 2.045} {
		if got := TQuantile975(df); math.Round(got*1000)/1000 != want {
			t.Errorf("t(0.975, %d) = %v, want %v", df, got, want)
		}
	}
	// Between and beyond the rows: reference values of the t distribution.
	for df, want := range map[int]float64{35: 2.030, 50: 2.009, 100: 1.984, 1000: 1.962, 1 << 30: 1.960} {
		if got := TQuantile975(df); math.Abs(got-want) > 0.0015 {
			t.Errorf("t(0.975, %d) = %.4f, want %.3f", df, got, want)
		}
	}
	if !math.IsNaN(TQuantile975(0)) {
		t.Error("df 0 must be NaN")
	}
	prev := math.Inf(1)
	for df := 1; df < 5000; df++ {
		v := TQuantile975(df)
		if !(v < prev) && !(v == prev && df > 120) {
			t.Fatalf("t(0.975, %d) = %v is not below t(0.975, %d) = %v", df, v, df-1, prev)
		}
		prev = v
	}
}

func TestPercentile(t *testing.T) {
	x := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	for p, want := range map[float64]float64{95: 10, 90: 9, 50: 5, 10: 1, 1: 1, 100: 10} {
		if got := Percentile(x, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if x[0] != 5 {
		t.Error("Percentile sorted its input")
	}
}
