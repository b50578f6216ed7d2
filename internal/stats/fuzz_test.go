package stats

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// floats reads b as little-endian float64s, any bit pattern (NaN, ±Inf,
// subnormals) included.
func floats(b []byte) []float64 {
	x := make([]float64, len(b)/8)
	for i := range x {
		x[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return x
}

func fbytes(x ...float64) []byte {
	var b []byte
	for _, v := range x {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// Every function takes any sample without panicking; a percentile is one of
// the values, N counts the values that are not NaN, a JFI of finite shares
// lies in [1/n, 1], and the inputs are left as they were.
func FuzzStats(f *testing.F) {
	f.Add(fbytes(48.2, 51.0, 49.5, 50.3, 47.9), 95.0)
	f.Add(fbytes(), 50.0)
	f.Add(fbytes(math.NaN(), 1, math.Inf(1)), 0.0)
	f.Add(fbytes(0, 0, 0), math.NaN())
	f.Add(fbytes(-3, 1e308, 1e308), -1.0)
	f.Add(fbytes(5), math.Inf(1))
	f.Fuzz(func(t *testing.T, b []byte, p float64) {
		x := floats(b)
		orig := slices.Clone(x)
		known := 0
		for _, v := range x {
			if !math.IsNaN(v) {
				known++
			}
		}

		q := Percentile(x, p)
		switch {
		case len(x) == 0 || math.IsNaN(p):
			if !math.IsNaN(q) {
				t.Errorf("Percentile(%v, %v) = %v, want NaN", x, p, q)
			}
		case !slices.ContainsFunc(x, func(v float64) bool { return v == q || math.IsNaN(v) && math.IsNaN(q) }):
			t.Errorf("Percentile(%v, %v) = %v is none of the values", x, p, q)
		}
		s := slices.Clone(x)
		slices.Sort(s)
		if q2 := PercentileSorted(s, p); q2 != q && !(math.IsNaN(q) && math.IsNaN(q2)) {
			t.Errorf("PercentileSorted = %v, Percentile = %v", q2, q)
		}

		st := Summarize(x)
		if st.N != known {
			t.Errorf("Summarize(%v).N = %d, want %d", x, st.N, known)
		}
		if known > 0 && st.Mean != MeanOmitNaN(x) && !(math.IsNaN(st.Mean) && math.IsNaN(MeanOmitNaN(x))) {
			t.Errorf("Summarize's mean %v, MeanOmitNaN %v", st.Mean, MeanOmitNaN(x))
		}
		if st.SD < 0 || st.CI95 < 0 {
			t.Errorf("Summarize(%v) = %+v: negative spread", x, st)
		}
		if known < 2 && (!math.IsNaN(st.SD) || !math.IsNaN(st.CI95)) {
			t.Errorf("Summarize(%v) = %+v: spread from fewer than 2 values", x, st)
		}
		if known == len(x) {
			if m, mo := Mean(x), MeanOmitNaN(x); m != mo && !(math.IsNaN(m) && math.IsNaN(mo)) {
				t.Errorf("Mean %v, MeanOmitNaN %v without NaN values", m, mo)
			}
		}

		j := JFI(x)
		finite := len(x) > 0 && !slices.ContainsFunc(x, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 })
		if finite && !math.IsNaN(j) && (j > 1+1e-9 || j < 1/float64(len(x))-1e-9) {
			t.Errorf("JFI(%v) = %v, outside [1/n, 1]", x, j)
		}
		if len(x) == 0 && !math.IsNaN(j) {
			t.Errorf("JFI() = %v, want NaN", j)
		}
		_ = CombinedHalfWidth(x...)

		if !slices.EqualFunc(x, orig, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
			t.Errorf("an input was changed: %v, was %v", x, orig)
		}
	})
}
