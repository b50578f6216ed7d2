package durhist

import (
	"math"
	"testing"
	"time"
)

// Bins are contiguous and increasing, each maps back to itself, and every
// duration lies in a bin whose reading is within 1/32 of it (below 1 µs in
// the exact bins).
func TestBins(t *testing.T) {
	prev := -1
	for v := uint64(0); v < 1<<42; v = v*17/16 + 1 {
		d := time.Duration(v) * time.Microsecond
		b := Bin(d)
		if b < prev || b >= Bins {
			t.Fatalf("%v in bin %d after bin %d", d, b, prev)
		}
		prev = b
		lo, hi := Range(b)
		if d < lo || (b < Bins-1 && d >= hi) {
			t.Fatalf("%v in bin %d, which counts [%v, %v)", d, b, lo, hi)
		}
		if b < Bins-1 {
			if v := value(b); math.Abs(float64(v-d)) > float64(d)/32+float64(time.Microsecond) {
				t.Fatalf("%v: bin %d reads %v", d, b, v)
			}
		}
	}
	for b := range Bins - 1 {
		lo, hi := Range(b)
		if nlo, _ := Range(b + 1); nlo != hi || Bin(lo) != b || Bin(hi-1) != b {
			t.Fatalf("bin %d [%v, %v): next starts at %v, Bin(lo) %d, Bin(hi-1) %d", b, lo, hi, nlo, Bin(lo), Bin(hi-1))
		}
	}
	if Bin(-time.Second) != 0 || Bin(time.Duration(1<<41)*time.Microsecond) != Bins-1 || Bin(math.MaxInt64) != Bins-1 {
		t.Error("negative durations should count as 0 and huge ones in the overflow bin")
	}
}

func TestQuantile(t *testing.T) {
	var bins [Bins]uint64
	count := func(ds ...time.Duration) time.Duration {
		bins = [Bins]uint64{}
		var largest time.Duration
		for _, d := range ds {
			bins[Bin(d)]++
			largest = max(largest, d)
		}
		return largest
	}
	if q := Quantile(bins[:], 0, 0.5); q != 0 {
		t.Errorf("empty: %v", q)
	}

	// The nearest rank ⌈q·n⌉: whole microseconds below 32 µs.
	largest := count(500*time.Nanosecond, 3*time.Microsecond, 3*time.Microsecond, 10*time.Millisecond)
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{
		{0, 0}, // rank 1, in [0, 1 µs)
		{0.25, 0},
		{0.26, 3 * time.Microsecond}, // rank 2
		{0.5, 3 * time.Microsecond},
		{0.75, 3 * time.Microsecond},
		{0.76, 10 * time.Millisecond}, // the top rank: the largest, exactly
		{1, 10 * time.Millisecond},
	} {
		if got := Quantile(bins[:], largest, c.q); got != c.want {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}

	// Never above the largest: 100 durations of 40 µs read 40 µs, not the
	// middle of [40, 42) µs.
	many := make([]time.Duration, 100)
	for i := range many {
		many[i] = 40 * time.Microsecond
	}
	largest = count(many...)
	if got := Quantile(bins[:], largest, 0.5); got != 40*time.Microsecond {
		t.Errorf("p50 of 40 µs = %v", got)
	}

	// A p99 anywhere in [480, 496) µs reads that bin's middle, 488 µs.
	many = many[:0]
	for range 98 {
		many = append(many, 100*time.Microsecond)
	}
	largest = count(append(many, 490*time.Microsecond, 2*time.Millisecond)...)
	if got := Quantile(bins[:], largest, 0.99); got != 488*time.Microsecond {
		t.Errorf("p99 %v, want 488µs, the middle of [480, 496) µs", got)
	}

	// A rank in the overflow bin is the largest.
	largest = count(time.Microsecond, math.MaxInt64)
	if got := Quantile(bins[:], largest, 0.4); got != time.Microsecond {
		t.Errorf("p40 %v", got)
	}
	if got := Quantile(bins[:], largest, 0.6); got != math.MaxInt64 {
		t.Errorf("p60 in the overflow bin: %v", got)
	}
}

// 1..1000 ms, one each: Quantile(q) is within 3 % of q × 1 s.
func TestQuantileAccuracy(t *testing.T) {
	var bins [Bins]uint64
	for i := 1; i <= 1000; i++ {
		bins[Bin(time.Duration(i)*time.Millisecond)]++
	}
	for _, q := range []float64{0.01, 0.5, 0.95, 0.99} {
		want := q * float64(time.Second)
		if got := float64(Quantile(bins[:], time.Second, q)); math.Abs(got-want)/want > 0.03 {
			t.Errorf("Quantile(%v) = %v, want %v ± 3%%", q, time.Duration(got), time.Duration(want))
		}
	}
}

// Bin is on the packet path (every delay line release, every PDCP
// delivery).
func BenchmarkBin(b *testing.B) {
	var bins [Bins]uint64
	d := 37 * time.Microsecond
	for b.Loop() {
		bins[Bin(d)]++
		d = d*1021%(500*time.Millisecond) + time.Microsecond
	}
}
