package dcproxy

import (
	"errors"
	"testing"
	"time"
)

func TestVerdictLatency(t *testing.T) {
	var v VerdictLatency
	stamp := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// 98 packets answered 40 µs after their stamp, one after 900 µs, one
	// after 120 ms (a stall).
	for range 98 {
		v.add(stamp.Add(40*time.Microsecond), stamp)
	}
	v.add(stamp.Add(900*time.Microsecond), stamp)
	v.add(stamp.Add(120*time.Millisecond), stamp)
	// Not measured: no stamp, a stamp from the future, a clock step.
	v.add(stamp, time.Time{})
	v.add(stamp, stamp.Add(time.Millisecond))
	v.add(stamp.Add(time.Hour), stamp)

	if v.Count != 100 || v.Unstamped != 3 {
		t.Fatalf("count %d, unstamped %d; want 100 and 3", v.Count, v.Unstamped)
	}
	// Quantiles are read from the middle of their bin (within 3 %); p99
	// is the 99th of the 100 values.
	near := func(d, want time.Duration) bool { return d >= want*97/100 && d <= want*103/100 }
	if p50 := v.Quantile(0.5); !near(p50, 40*time.Microsecond) {
		t.Errorf("p50 %v, want 40µs ± 3%%", p50)
	}
	if p99 := v.Quantile(0.99); !near(p99, 900*time.Microsecond) {
		t.Errorf("p99 %v, want 900µs ± 3%%", p99)
	}
	if v.Max != 120*time.Millisecond {
		t.Errorf("max %v, want 120ms", v.Max)
	}
	if want := (98*40*time.Microsecond + 900*time.Microsecond + 120*time.Millisecond) / 100; v.Mean() != want {
		t.Errorf("mean %v, want %v", v.Mean(), want)
	}
}

func TestVerdictLatencyAllocatesNothing(t *testing.T) {
	var v VerdictLatency
	now := time.Now()
	stamp := now.Add(-50 * time.Microsecond).Round(0)
	if n := testing.AllocsPerRun(1000, func() { v.add(now, stamp) }); n != 0 {
		t.Errorf("add allocates %.1f times", n)
	}
}

func TestQueueStatsSample(t *testing.T) {
	var s QueueStats
	s.sample(12, 0, 0, nil)
	s.sample(3, 2, 5, nil)
	s.sample(0, 0, 0, errors.New("read failed"))
	if s.HeldMax != 12 || s.Dropped != 7 || s.Errors != 1 {
		t.Errorf("got %+v, want held max 12, 7 dropped (the kernel's running totals), 1 error", s)
	}
}

// BenchmarkVerdictLatencyAdd is what the transmit loop adds per packet for
// the histogram: one wall-clock subtraction and one bin.
func BenchmarkVerdictLatencyAdd(b *testing.B) {
	var v VerdictLatency
	now := time.Now()
	stamp := now.Add(-50 * time.Microsecond).Round(0)
	b.ReportAllocs()
	for b.Loop() {
		v.add(now, stamp)
	}
}
