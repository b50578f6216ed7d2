package linkstats

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// errBound is what the package doc promises: no byte's delay, so no
// quantile, is off by more than two sampling intervals (its departure and
// its arrival each misplaced within one), plus the sampler's jitter and one
// packet's time on the slowest rate (the simulated packets leave whole,
// the interpolation spreads their bytes).
func errBound(interval, jitter time.Duration, slowest float64) time.Duration {
	return 2*(interval+jitter) + time.Duration(float64(MaxFrame*8)/WireRate(slowest, FrameHeader)*1e9)
}

func within(t *testing.T, what string, got, want, tol time.Duration) {
	t.Helper()
	if d := got - want; d > tol || d < -tol {
		t.Errorf("%s: %v, exact %v, off by %v (bound ±%v)", what, got, want, d, tol)
	}
}

// TestQueueDelaysAgainstSimulatedFIFO: a limiter with overload and drops,
// rate changes, an outage, idle periods and sparse traffic, sampled every
// 10 ms and every 100 ms with 1 ms of ticker jitter. Every quantile, the
// maximum and the mean are within the bound of errBound of the exact
// byte-weighted figures, and every departed byte is counted once.
func TestQueueDelaysAgainstSimulatedFIFO(t *testing.T) {
	f := mixedScenario()
	end := 12 * time.Second
	ex := f.exact(end)
	drops := 0
	for _, p := range f.pkts {
		if p.dropped {
			drops++
		}
	}
	if drops == 0 || ex.Max < 300*time.Millisecond {
		t.Fatalf("scenario lost its point: %d drops, max sojourn %v (want drops and the outage's wait)", drops, ex.Max)
	}
	t.Logf("exact: %d bytes, p50 %v p95 %v p99 %v max %v mean %v; %d of %d packets dropped",
		ex.Bytes, ex.P50, ex.P95, ex.P99, ex.Max, ex.Mean, drops, len(f.pkts))
	for _, iv := range []time.Duration{10 * time.Millisecond, 100 * time.Millisecond} {
		t.Run(fmt.Sprint(iv), func(t *testing.T) {
			jitter := time.Millisecond
			q, err := QueueDelays(f.sample(iv, jitter, end, 1), 100*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			m := q.Measured
			bound := errBound(iv, jitter, 5e6)
			t.Logf("every %v: p50 %v p95 %v p99 %v max %v mean %v (bound ±%v); derived p50 %v p95 %v p99 %v",
				iv, m.P50, m.P95, m.P99, m.Max, m.Mean, bound, q.Derived.P50, q.Derived.P95, q.Derived.P99)
			within(t, "p50", m.P50, ex.P50, bound)
			within(t, "p95", m.P95, ex.P95, bound)
			within(t, "p99", m.P99, ex.P99, bound)
			within(t, "max", m.Max, ex.Max, bound)
			within(t, "mean", m.Mean, ex.Mean, bound)
			// The scenario is fixed (no randomness but the ticker's), so
			// what it measured is asserted too: 1 ms plus a tenth of the
			// interval (measured: 0.9 ms at 10 ms, 4.0 ms at 100 ms).
			tight := time.Millisecond + iv/10
			within(t, "p50 (tight)", m.P50, ex.P50, tight)
			within(t, "p95 (tight)", m.P95, ex.P95, tight)
			within(t, "p99 (tight)", m.P99, ex.P99, tight)
			within(t, "max (tight)", m.Max, ex.Max, tight)
			within(t, "mean (tight)", m.Mean, ex.Mean, tight)
			// The first packet arrives at 0, with the first reading: its
			// arrival time is not after the reading, so it is unmeasured.
			if m.Bytes+q.Unmeasured != ex.Bytes || q.Unmeasured > MaxFrame {
				t.Errorf("measured %d bytes (%d unmeasured), %d left the queue", m.Bytes, q.Unmeasured, ex.Bytes)
			}
			var binned uint64
			for _, b := range q.Bins {
				binned += b.Bytes
			}
			if d := int64(binned) - int64(m.Bytes); d > int64(len(q.Bins)) || d < -int64(len(q.Bins)) { // rounding per bin
				t.Errorf("bins hold %d bytes, the distribution %d", binned, m.Bytes)
			}
		})
	}
}

// TestQueueDelaysSaturatingFlow: what issue 12 asks to show — a saturated
// 20 Mbit/s link with a 50 ms queue under a Reno-like flow (20 ms base
// round trip, 30 s). The exact p95 is near 50 ms; the counters give it
// within 1 ms (2 %) sampled every 10 ms and within 5 ms (10 %) every
// 100 ms, tighter than errBound because the queue drains at a constant
// rate and the flow fills it smoothly between its loss events.
func TestQueueDelaysSaturatingFlow(t *testing.T) {
	f := newFIFO(125_000, []step{{0, 20e6}})
	end := 30 * time.Second
	f.reno(20*time.Millisecond, end)
	ex := f.exact(end)
	t.Logf("exact: p50 %v p95 %v p99 %v max %v mean %v", ex.P50, ex.P95, ex.P99, ex.Max, ex.Mean)
	if ex.P95 < 40*time.Millisecond || ex.P95 > 51*time.Millisecond {
		t.Fatalf("simulated flow does not saturate the queue: exact p95 %v", ex.P95)
	}
	for _, c := range []struct {
		iv, tol time.Duration
	}{{10 * time.Millisecond, time.Millisecond}, {100 * time.Millisecond, 5 * time.Millisecond}} {
		t.Run(fmt.Sprint(c.iv), func(t *testing.T) {
			q, err := QueueDelays(f.sample(c.iv, time.Millisecond, end, 2), 100*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			m := q.Measured
			t.Logf("every %v: p50 %v (%+v) p95 %v (%+v) p99 %v (%+v) mean %v (%+v); derived p50 %v p95 %v",
				c.iv, m.P50, m.P50-ex.P50, m.P95, m.P95-ex.P95, m.P99, m.P99-ex.P99, m.Mean, m.Mean-ex.Mean, q.Derived.P50, q.Derived.P95)
			within(t, "p50", m.P50, ex.P50, c.tol)
			within(t, "p95", m.P95, ex.P95, c.tol)
			within(t, "p99", m.P99, ex.P99, c.tol)
			within(t, "mean", m.Mean, ex.Mean, c.tol)
			// At a constant rate backlog ÷ rate is the wait a byte
			// arriving then will see: the derived figure agrees.
			within(t, "derived p95", q.Derived.P95, ex.P95, c.tol)
		})
	}
}

// onOff offers bursts of n full-size packets at rate, each followed by a
// pause as long as the burst, from 0 to end: what a DC batch scheduler
// hands each link (batch after batch, alternating).
func (f *fifo) onOff(n int, rate float64, end time.Duration) {
	gap := float64(IPMTU*8) / rate
	for t := 0.0; t < end.Seconds(); t += gap * float64(n) {
		for range n {
			f.offer(t, MaxFrame)
			t += gap
		}
	}
}

// TestQueueDelaySamplingInterval measures the p95 error against the exact
// figure for sampling intervals from 1 to 100 ms, for a saturating flow and
// for batch-alternating (DC) arrivals whose queue fills and drains every
// 54 ms, and asserts errBound for each. The logged table is the answer to
// "how often must a run sample for ±10 % at a 50 ms queue".
func TestQueueDelaySamplingInterval(t *testing.T) {
	end := 20 * time.Second
	reno := newFIFO(125_000, []step{{0, 20e6}})
	reno.reno(20*time.Millisecond, end)
	batch := newFIFO(125_000, []step{{0, 20e6}})
	batch.onOff(150, 40e6, end)
	for _, sc := range []struct {
		name string
		f    *fifo
	}{{"reno", reno}, {"batch", batch}} {
		ex := sc.f.exact(end)
		t.Logf("%s: exact p50 %v p95 %v p99 %v max %v", sc.name, ex.P50, ex.P95, ex.P99, ex.Max)
		for _, iv := range []time.Duration{time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond} {
			jitter := iv / 10
			q, err := QueueDelays(sc.f.sample(iv, jitter, end, 3), 100*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			m := q.Measured
			pct := func(got, want time.Duration) float64 { return 100 * float64(got-want) / float64(want) }
			t.Logf("%s every %7v: p50 %+6.1f %%  p95 %+6.1f %%  p99 %+6.1f %%  mean %+6.1f %%  (derived p95 %+6.1f %%)",
				sc.name, iv, pct(m.P50, ex.P50), pct(m.P95, ex.P95), pct(m.P99, ex.P99), pct(m.Mean, ex.Mean), pct(q.Derived.P95, ex.P95))
			bound := errBound(iv, jitter, 20e6)
			within(t, sc.name+" p95", m.P95, ex.P95, bound)
			within(t, sc.name+" mean", m.Mean, ex.Mean, bound)
		}
	}
}

// BenchmarkQueueDelays: a 180 s run read every 10 ms (18 000 readings)
// under a saturating flow, what a fairness run at 10 ms sampling gives.
func BenchmarkQueueDelays(b *testing.B) {
	f := newFIFO(125_000, []step{{0, 20e6}})
	f.reno(20*time.Millisecond, 180*time.Second)
	samples := f.sample(10*time.Millisecond, time.Millisecond, 180*time.Second, 7)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := QueueDelays(samples, 100*time.Millisecond); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBinsTrackExact: in the hard-day scenario read every 10 ms, each
// 100 ms bin's mean delay is within 5 ms of the exact mean of the packets
// that left in it (measured: 1.1 ms at most), for bins
// with at least ten packets; bins where nothing left say so.
func TestBinsTrackExact(t *testing.T) {
	f := mixedScenario()
	end := 12 * time.Second
	q, err := QueueDelays(f.sample(10*time.Millisecond, time.Millisecond, end, 1), 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	type acc struct{ bytes, sum float64 }
	exact := make([]acc, len(q.Bins))
	for _, p := range f.pkts {
		if p.dropped || p.dep > end.Seconds() {
			continue
		}
		k := int(math.Ceil(p.dep/0.1)) - 1
		if k >= 0 && k < len(exact) {
			exact[k].bytes += float64(p.size)
			exact[k].sum += float64(p.size) * (p.dep - p.arr)
		}
	}
	var worst time.Duration
	for k, b := range q.Bins {
		if exact[k].bytes < 10*MaxFrame {
			if exact[k].bytes == 0 && b.Bytes > 2*MaxFrame {
				t.Errorf("bin %v: %d bytes, none left then", b.End, b.Bytes)
			}
			continue
		}
		want := seconds(exact[k].sum / exact[k].bytes)
		d := b.Mean - want
		if d < 0 {
			d = -d
		}
		worst = max(worst, d)
		if d > 5*time.Millisecond {
			t.Errorf("bin %v: mean %v, exact %v", b.End, b.Mean, want)
		}
	}
	t.Logf("largest bin error %v over %d bins", worst, len(q.Bins))
}
