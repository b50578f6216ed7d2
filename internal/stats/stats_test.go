package stats

import (
	"math"
	"slices"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestMean(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		x          []float64
		mean, omit float64
		meanIsNaN  bool
		omitIsNaN  bool
	}{
		{x: []float64{1, 2, 3, 4}, mean: 2.5, omit: 2.5},
		{x: []float64{-1, 1}, mean: 0, omit: 0},
		{x: []float64{7}, mean: 7, omit: 7},
		{x: []float64{1, nan, 3}, meanIsNaN: true, omit: 2},
		{x: []float64{nan, nan}, meanIsNaN: true, omitIsNaN: true},
		{x: nil, meanIsNaN: true, omitIsNaN: true},
	} {
		if got := Mean(c.x); c.meanIsNaN != math.IsNaN(got) || !c.meanIsNaN && got != c.mean {
			t.Errorf("Mean(%v) = %v, want %v (NaN %v)", c.x, got, c.mean, c.meanIsNaN)
		}
		if got := MeanOmitNaN(c.x); c.omitIsNaN != math.IsNaN(got) || !c.omitIsNaN && got != c.omit {
			t.Errorf("MeanOmitNaN(%v) = %v, want %v (NaN %v)", c.x, got, c.omit, c.omitIsNaN)
		}
	}
}

// Small samples worked by hand.
func TestSummarizeByHand(t *testing.T) {
	// 2, 4: mean 3, Σ(x−x̄)² = 2, s = √2, s/√2 = 1, so the half-width is
	// t(0.975, 1) = 12.706 itself.
	st := Summarize([]float64{2, 4})
	if st.N != 2 || st.Mean != 3 || !near(st.SD, math.Sqrt2, 1e-15) || !near(st.CI95, 12.7062, 1e-4) {
		t.Errorf("Summarize(2, 4) = %+v, want mean 3, sd √2, ±12.706", st)
	}
	// 1, 2, 3, 4: mean 2.5, Σ(x−x̄)² = 2.25+0.25+0.25+2.25 = 5, s = √(5/3) =
	// 1.29099, s/√4 = 0.645497, t(0.975, 3) = 3.18245, half-width 2.05426.
	st = Summarize([]float64{1, 2, 3, 4})
	if st.N != 4 || st.Mean != 2.5 || !near(st.SD, math.Sqrt(5.0/3), 1e-15) || !near(st.CI95, 2.05426, 1e-5) {
		t.Errorf("Summarize(1..4) = %+v, want mean 2.5, sd 1.29099, ±2.05426", st)
	}
	// Equal values: no spread, a zero-width interval.
	st = Summarize([]float64{5, 5, 5})
	if st.N != 3 || st.Mean != 5 || st.SD != 0 || st.CI95 != 0 {
		t.Errorf("Summarize(5, 5, 5) = %+v", st)
	}
	// NaN values are left out: 1, NaN, 3 is the sample 1, 3 (mean 2, s = √2,
	// half-width 12.706).
	st = Summarize([]float64{1, math.NaN(), 3})
	if st.N != 2 || st.Mean != 2 || !near(st.SD, math.Sqrt2, 1e-15) || !near(st.CI95, 12.7062, 1e-4) {
		t.Errorf("Summarize(1, NaN, 3) = %+v", st)
	}
	if st.Mean != MeanOmitNaN([]float64{1, math.NaN(), 3}) {
		t.Error("Summarize's mean is not MeanOmitNaN's")
	}
}

func TestSummarizeWorkedExample(t *testing.T) {
	// docs/metrics.md §5: 48.2, 51.0, 49.5, 50.3, 47.9 → 49.38, s = 1.329,
	// half-width 1.650, CI [47.73, 51.03]. The worked example takes t from
	// a three-decimal table (2.776); the exact quantile gives 1.6505.
	st := Summarize([]float64{48.2, 51.0, 49.5, 50.3, 47.9})
	round := func(v float64, d int) float64 { p := math.Pow(10, float64(d)); return math.Round(v*p) / p }
	if st.N != 5 || round(st.Mean, 2) != 49.38 || round(st.SD, 3) != 1.329 || math.Abs(st.CI95-1.650) > 0.001 ||
		round(st.Mean-st.CI95, 2) != 47.73 || round(st.Mean+st.CI95, 2) != 51.03 {
		t.Errorf("Summarize = %+v, want mean 49.38, sd 1.329, ±1.650, [47.73, 51.03]", st)
	}
}

func TestSummarizeTooFew(t *testing.T) {
	one := Summarize([]float64{3, math.NaN()})
	if one.N != 1 || one.Mean != 3 || !math.IsNaN(one.SD) || !math.IsNaN(one.CI95) {
		t.Errorf("one value: %+v", one)
	}
	for _, x := range [][]float64{nil, {}, {math.NaN()}} {
		if none := Summarize(x); none.N != 0 || !math.IsNaN(none.Mean) || !math.IsNaN(none.SD) || !math.IsNaN(none.CI95) {
			t.Errorf("Summarize(%v) = %+v", x, none)
		}
	}
}

func TestTQuantile(t *testing.T) {
	// The table in docs/metrics.md §5, which is rounded to three decimals.
	for df, want := range map[int]float64{2: 4.303, 4: 2.776, 9: 2.262, 14: 2.145, 19: 2.093, 29: 2.045} {
		if got := TQuantile975(df); math.Round(got*1000)/1000 != want {
			t.Errorf("t(0.975, %d) = %v, want %v", df, got, want)
		}
	}
	// Between and beyond the rows: reference values of the t distribution.
	for df, want := range map[int]float64{1: 12.706, 3: 3.182, 35: 2.030, 50: 2.009, 100: 1.984, 1000: 1.962, 1 << 30: 1.960} {
		if got := TQuantile975(df); math.Abs(got-want) > 0.0015 {
			t.Errorf("t(0.975, %d) = %.4f, want %.3f", df, got, want)
		}
	}
	for _, df := range []int{0, -1} {
		if !math.IsNaN(TQuantile975(df)) {
			t.Errorf("df %d must be NaN", df)
		}
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

func TestCombinedHalfWidth(t *testing.T) {
	if got := CombinedHalfWidth(3, 4); got != 5 {
		t.Errorf("CombinedHalfWidth(3, 4) = %v, want 5", got)
	}
	if got := CombinedHalfWidth(2); got != 2 {
		t.Errorf("CombinedHalfWidth(2) = %v, want 2", got)
	}
	if got := CombinedHalfWidth(); got != 0 {
		t.Errorf("CombinedHalfWidth() = %v, want 0", got)
	}
	if got := CombinedHalfWidth(1, math.NaN()); !math.IsNaN(got) {
		t.Errorf("CombinedHalfWidth(1, NaN) = %v, want NaN", got)
	}
}

func TestPercentile(t *testing.T) {
	x := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	for p, want := range map[float64]float64{
		95: 10, 90: 9, 50: 5, 10: 1, 1: 1, 100: 10, // rank ⌈p·n/100⌉: 9.5 → 10, 9 → 9, 5, 1, 0.1 → 1, 10
		10.0001: 2, 89.9999: 9, 0: 1, -5: 1, 250: 10, math.Inf(1): 10, math.Inf(-1): 1,
	} {
		if got := Percentile(x, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if x[0] != 5 {
		t.Error("Percentile sorted its input")
	}
	// Nearest rank, no interpolation: the median of an even count is the
	// lower middle value, and p99 of 100 values is the 99th.
	if got := Percentile([]float64{4, 1, 3, 2}, 50); got != 2 {
		t.Errorf("median of 1..4 = %v, want 2", got)
	}
	var h []float64
	for i := 100; i >= 1; i-- {
		h = append(h, float64(i))
	}
	if got := Percentile(h, 99); got != 99 {
		t.Errorf("p99 of 1..100 = %v, want 99", got)
	}
	if got := Percentile(h[:20], 95); got != 99 {
		t.Errorf("p95 of 81..100 = %v, want 99 (rank 19 of 20)", got)
	}
	for _, p := range []float64{0, 1, 50, 99, 100} {
		if got := Percentile([]float64{42}, p); got != 42 {
			t.Errorf("p%v of one value = %v", p, got)
		}
	}
	if got := Percentile(nil, 50); !math.IsNaN(got) {
		t.Errorf("no values: %v", got)
	}
	if got := Percentile(x, math.NaN()); !math.IsNaN(got) {
		t.Errorf("NaN p: %v", got)
	}
	s := slices.Sorted(slices.Values(x))
	for _, p := range []float64{1, 33, 50, 95, 99, 100} {
		if a, b := Percentile(x, p), PercentileSorted(s, p); a != b {
			t.Errorf("p%v: Percentile %v, PercentileSorted %v", p, a, b)
		}
	}
}

func TestJFI(t *testing.T) {
	cases := []struct {
		name string
		x    []float64
		want float64
	}{
		{"metrics.md 10/20/30", []float64{10, 20, 30}, 3600.0 / 4200.0},
		{"equal shares", []float64{20, 20, 20}, 1},
		{"equal tiny shares", []float64{1e-300, 1e-300}, 1},
		{"one of three takes all", []float64{60, 0, 0}, 1.0 / 3},
		{"one of five takes all", []float64{0, 0, 7, 0, 0}, 1.0 / 5},
		{"one of two takes all", []float64{0, 1}, 1.0 / 2},
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
