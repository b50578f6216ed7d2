package delayline

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// record is a Verdicts that logs its calls.
type record struct{ calls []string }

func (r *record) AcceptUpTo(id uint32) { r.calls = append(r.calls, fmt.Sprintf("upto %d", id)) }
func (r *record) Accept(id uint32)     { r.calls = append(r.calls, fmt.Sprintf("accept %d", id)) }
func (r *record) Drop(id uint32)       { r.calls = append(r.calls, fmt.Sprintf("drop %d", id)) }
func (r *record) take() []string       { c := r.calls; r.calls = nil; return c }

var t0 = time.Unix(1_000_000, 0)

func at(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }

func mustNew(t testing.TB, seed uint64, p Params) *Line {
	t.Helper()
	l, err := New(seed, p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestFIFOReleasesInBatchesAtDueTime(t *testing.T) {
	l := mustNew(t, 1, Params{Delay: 10 * time.Millisecond})
	var v record
	for i, ms := range []float64{0, 1, 2} {
		l.Arrive(at(ms), uint32(100+i), 1500)
	}
	steps := []struct {
		now  float64
		want []string
		next float64 // -1: nothing held
	}{
		{9.999, nil, 10},
		{10, []string{"upto 100"}, 11},
		{12.5, []string{"upto 102"}, -1},
	}
	for _, s := range steps {
		next, ok := l.Release(at(s.now), &v)
		if got := v.take(); !slices.Equal(got, s.want) {
			t.Errorf("at %vms: verdicts %q, want %q", s.now, got, s.want)
		}
		if s.next < 0 && ok || s.next >= 0 && (!ok || !next.Equal(at(s.next))) {
			t.Errorf("at %vms: next %v (%v), want %vms", s.now, next.Sub(t0), ok, s.next)
		}
	}
	snap := l.Counters().Snapshot()
	if snap.In != 3 || snap.Released != 3 || snap.ReleasedBytes != 4500 || snap.Backlog != 0 || snap.BacklogBytes != 0 {
		t.Errorf("counters %+v", snap)
	}
	// Packet 101 was due at 11 ms and released at 12.5 ms.
	if q := snap.Late.Quantile(1); q < 1500*time.Microsecond || q > 1700*time.Microsecond {
		t.Errorf("max lateness bin edge %v, want 1.5 ms + at most one bin", q)
	}
}

// TestLostPacketsDropBeforeTheBatchThatCoversThem: a lost id inside a run
// of delivered ones is dropped before the batch verdict past it, and at
// once when nothing is held ahead of it.
func TestLostPacketsDropBeforeTheBatchThatCoversThem(t *testing.T) {
	l := mustNew(t, 1, Params{Delay: 10 * time.Millisecond})
	var v record
	lose := func(on bool) {
		p := Params{Delay: 10 * time.Millisecond}
		if on {
			p.Loss = 1
		}
		if err := l.SetParams(p); err != nil {
			t.Fatal(err)
		}
	}
	lose(true)
	l.Arrive(at(0), 1, 100)
	if _, ok := l.Release(at(0), &v); ok || !slices.Equal(v.take(), []string{"drop 1"}) {
		t.Fatalf("a lost packet with nothing ahead was not dropped at once")
	}
	lose(false)
	l.Arrive(at(1), 2, 100)
	lose(true)
	l.Arrive(at(2), 3, 100)
	l.Arrive(at(2), 4, 100)
	lose(false)
	l.Arrive(at(3), 5, 100)
	l.Arrive(at(4), 6, 100)
	l.Release(at(3), &v)
	if got := v.take(); len(got) != 0 {
		t.Errorf("verdicts before anything is due: %q", got)
	}
	l.Release(at(20), &v)
	want := []string{"upto 2", "drop 3", "drop 4", "upto 6"}
	if got := v.take(); !slices.Equal(got, want) {
		t.Errorf("verdicts %q, want %q", got, want)
	}
	if s := l.Counters().Snapshot(); s.Lost != 3 || s.Released != 3 || s.Backlog != 0 {
		t.Errorf("counters: %+v", s)
	}
}

func lostIndices(seed uint64, p Params, n int) []int {
	l, _ := New(seed, p)
	var lost []int
	for i := range n {
		if l.Arrive(at(float64(i)*0.01), uint32(i), 1500) {
			lost = append(lost, i)
		}
		l.Release(at(float64(i)*0.01), &discard{})
	}
	return lost
}

type discard struct{}

func (discard) AcceptUpTo(uint32) {}
func (discard) Accept(uint32)     {}
func (discard) Drop(uint32)       {}

func TestLossIsSeededAndCoupled(t *testing.T) {
	const n = 100_000
	p := Params{Delay: 10 * time.Millisecond, Jitter: time.Millisecond, Loss: 0.01}
	a := lostIndices(7, p, n)
	if rate := float64(len(a)) / n; math.Abs(rate-0.01) > 0.001 {
		t.Errorf("loss rate %.4f, want 0.01 ± 0.001", rate)
	}
	if b := lostIndices(7, p, n); !slices.Equal(a, b) {
		t.Error("same seed lost different packets")
	}
	// Jitter and mode do not shift the loss pattern.
	if b := lostIndices(7, Params{Loss: 0.01, Reorder: true, Jitter: 5 * time.Millisecond}, n); !slices.Equal(a, b) {
		t.Error("changing delay and jitter changed which packets are lost")
	}
	if b := lostIndices(8, p, n); slices.Equal(a, b) {
		t.Error("different seeds lost the same packets")
	}
	// A higher loss rate loses a superset.
	more := lostIndices(7, Params{Loss: 0.02}, n)
	for _, i := range a {
		if _, found := slices.BinarySearch(more, i); !found {
			t.Fatalf("packet %d lost at 1%% but not at 2%%", i)
		}
	}
}

// delays feeds n packets at a fixed rate and returns each packet's delay
// (due − arrival) and how often the in-order constraint raised a due time.
func delays(t *testing.T, seed uint64, p Params, rate float64, n int) (d []float64, bound int) {
	l := mustNew(t, seed, p)
	step := 1 / rate
	prevRaw := int64(math.MinInt64)
	for i := range n {
		now := at(float64(i) * step * 1000)
		l.Arrive(now, uint32(i), 100)
		var e held
		if p.Reorder {
			e = l.heap.h[slices.IndexFunc(l.heap.h, func(h held) bool { return h.id == uint32(i) })]
		} else {
			e = l.fifo.buf[(l.fifo.head+l.fifo.size-1)&(len(l.fifo.buf)-1)]
		}
		arr := l.ns(now)
		d = append(d, float64(e.due-arr)/1e6)
		if e.due == prevRaw {
			bound++
		}
		prevRaw = e.due
		l.Release(now, discard{})
	}
	return d, bound
}

func meanStd(x []float64) (m, s float64) {
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return m, math.Sqrt(s / float64(len(x)-1))
}

// TestOrderPreservingJitterKeepsItsDistribution: mean 10 ms and standard
// deviation 1 ms at 200 and at 20 000 packets/s, in order.
func TestOrderPreservingJitterKeepsItsDistribution(t *testing.T) {
	p := Params{Delay: 10 * time.Millisecond, Jitter: time.Millisecond}
	for _, rate := range []float64{200, 2000, 20000} {
		// 200 s of link time, 10 000 jitter time constants: the standard
		// error is about 0.02 ms for the mean and 0.01 ms for the std.
		n := int(200 * rate)
		d, bound := delays(t, 3, p, rate, n)
		m, s := meanStd(d)
		t.Logf("%6.0f pkt/s: mean %.4f ms, std %.4f ms, in-order bound %d of %d", rate, m, s, bound, n)
		if math.Abs(m-10) > 0.06 || math.Abs(s-1) > 0.05 {
			t.Errorf("%v pkt/s: delay mean %.4f ms std %.4f ms, want 10 ± 0.06 and 1 ± 0.05", rate, m, s)
		}
		if float64(bound) > 0.001*float64(n) {
			t.Errorf("%v pkt/s: order constraint raised %d of %d due times, want it almost never", rate, bound, n)
		}
	}
}

// TestJitterCorrelation checks the process's autocorrelation against
// (1 + t/τ)·e^{−t/τ} at lags τ and 3τ.
func TestJitterCorrelation(t *testing.T) {
	p := Params{Delay: 50 * time.Millisecond, Jitter: time.Millisecond, JitterCorr: 20 * time.Millisecond}
	d, _ := delays(t, 5, p, 1000, 1_000_000)
	m, s := meanStd(d)
	for _, lagMs := range []int{20, 60} {
		var c float64
		for i := lagMs; i < len(d); i++ {
			c += (d[i] - m) * (d[i-lagMs] - m)
		}
		r := c / float64(len(d)-lagMs) / (s * s)
		x := float64(lagMs) / 20
		want := (1 + x) * math.Exp(-x)
		if math.Abs(r-want) > 0.03 {
			t.Errorf("autocorrelation at %d ms: %.3f, want %.3f", lagMs, r, want)
		}
	}
}

func TestReorderingJitter(t *testing.T) {
	p := Params{Delay: 10 * time.Millisecond, Jitter: 2 * time.Millisecond, Reorder: true}
	d, _ := delays(t, 9, p, 2000, 200_000)
	m, s := meanStd(d)
	if math.Abs(m-10) > 0.02 || math.Abs(s-2) > 0.02 {
		t.Errorf("mean %.4f std %.4f, want 10 and 2", m, s)
	}
	// Release order follows due times, so packets overtake each other.
	l := mustNew(t, 9, p)
	var v record
	for i := range 2000 {
		l.Arrive(at(float64(i)*0.5), uint32(i), 100)
	}
	l.Release(at(1e6), &v)
	var ids []int
	for _, c := range v.take() {
		var id int
		if _, err := fmt.Sscanf(c, "accept %d", &id); err != nil {
			t.Fatalf("unexpected verdict %q in reorder mode", c)
		}
		ids = append(ids, id)
	}
	if len(ids) != 2000 || slices.IsSorted(ids) {
		t.Errorf("%d verdicts, sorted %v; want 2000 reordered", len(ids), slices.IsSorted(ids))
	}
}

func TestSameSeedSameDelays(t *testing.T) {
	p := Params{Delay: 10 * time.Millisecond, Jitter: 3 * time.Millisecond, Loss: 0.05}
	a, _ := delays(t, 11, p, 1000, 10_000)
	b, _ := delays(t, 11, p, 1000, 10_000)
	c, _ := delays(t, 12, p, 1000, 10_000)
	if !slices.Equal(a, b) {
		t.Error("same seed, same arrivals: different delays")
	}
	if slices.Equal(a, c) {
		t.Error("different seeds gave the same delays")
	}
}

func TestSetParamsAppliesToLaterArrivals(t *testing.T) {
	l := mustNew(t, 1, Params{Delay: 10 * time.Millisecond})
	l.Arrive(at(0), 1, 100)
	l.SetParams(Params{Delay: 50 * time.Millisecond})
	l.Arrive(at(1), 2, 100)
	var v record
	l.Release(at(10), &v)
	if got := v.take(); !slices.Equal(got, []string{"upto 1"}) {
		t.Errorf("at 10 ms: %q", got)
	}
	if next, _ := l.Release(at(50), &v); !next.Equal(at(51)) || len(v.take()) != 0 {
		t.Errorf("packet 2 should be due at 51 ms, next is %v", next.Sub(t0))
	}
	// A shorter delay does not overtake the packets already held.
	l.SetParams(Params{})
	l.Arrive(at(2), 3, 100)
	l.Release(at(2), &v)
	if got := v.take(); len(got) != 0 {
		t.Errorf("packet 3 overtook packet 2: %q", got)
	}
	l.Release(at(51), &v)
	if got := v.take(); !slices.Equal(got, []string{"upto 3"}) {
		t.Errorf("at 51 ms: %q", got)
	}
	// Packet 3 alone was held behind an earlier one.
	if n := l.Counters().Snapshot().FIFOHeld; n != 1 {
		t.Errorf("FIFOHeld = %d, want 1", n)
	}
}

func TestReleaseAll(t *testing.T) {
	l := mustNew(t, 1, Params{Delay: time.Second})
	l.Arrive(at(0), 1, 100)
	l.SetParams(Params{Delay: time.Second, Loss: 1})
	l.Arrive(at(0), 2, 100)
	l.SetParams(Params{Delay: time.Second})
	l.Arrive(at(0), 3, 100)
	var v record
	l.ReleaseAll(&v)
	if got := v.take(); !slices.Equal(got, []string{"upto 1", "drop 2", "upto 3"}) || l.Held() != 0 {
		t.Errorf("ReleaseAll: %q, %d held", got, l.Held())
	}
}

func TestValidate(t *testing.T) {
	for _, p := range []Params{{Delay: -1}, {Jitter: -1}, {JitterCorr: -1}, {Loss: -0.1}, {Loss: 1.2}, {Loss: math.NaN()},
		{Bursts: GilbertElliott{P: 0.1}}, {Loss: 0.1, Bursts: GilbertElliott{P: 0.1, R: 0.1}}, {Bursts: GilbertElliott{P: 0.1, R: 1.5}}} {
		if _, err := New(1, p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

func TestSteadyStateAllocatesNothing(t *testing.T) {
	for _, reorder := range []bool{false, true} {
		l := mustNew(t, 1, Params{Delay: time.Millisecond, Jitter: 100 * time.Microsecond, Loss: 0.01, Reorder: reorder})
		id := uint32(0)
		now := t0
		round := func() {
			for range 10 {
				now = now.Add(100 * time.Microsecond)
				l.Arrive(now, id, 1500)
				id++
			}
			l.Release(now, discard{})
		}
		for range 1000 {
			round() // grow the ring and heap to their steady size
		}
		if a := testing.AllocsPerRun(1000, round); a != 0 {
			t.Errorf("reorder=%v: %v allocations per round", reorder, a)
		}
	}
}

// The delay line's histogram reads as durhist says (its rules are tested
// there): whole microseconds below 32 µs, the largest exactly, and a
// snapshot taken while the packet thread adds counts what it copied.
func TestHistogram(t *testing.T) {
	var h Histogram
	for _, d := range []time.Duration{-time.Microsecond, 500 * time.Nanosecond, 3 * time.Microsecond, 127 * time.Microsecond, 128 * time.Microsecond, 10 * time.Millisecond} {
		h.Add(d)
	}
	s := h.Snapshot()
	if s.Count != 6 || s.Quantile(0) != 0 || s.Quantile(0.5) != 3*time.Microsecond {
		t.Errorf("count %d q0 %v q50 %v", s.Count, s.Quantile(0), s.Quantile(0.5))
	}
	if q := s.Quantile(1); q != 10*time.Millisecond || s.Max != 10*time.Millisecond {
		t.Errorf("q100 %v, max %v; want the largest duration, 10ms", q, s.Max)
	}
	if m := s.Mean(); m != (10*time.Millisecond+258500*time.Nanosecond)/6 {
		t.Errorf("mean %v", m)
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 100000 {
			h.Add(time.Duration(i%1000) * time.Microsecond)
		}
	}()
	for range 100 {
		s := h.Snapshot()
		if q := s.Quantile(0.99); q > s.Max {
			t.Fatalf("p99 %v above the largest %v", q, s.Max)
		}
	}
	<-done
}

// TestTakePeak: the peak is the largest lateness of the releases since
// the previous take, and taking it starts over.
func TestTakePeak(t *testing.T) {
	l := mustNew(t, 1, Params{Delay: time.Millisecond})
	l.Arrive(at(0), 1, 100)
	l.Arrive(at(0), 2, 100)
	l.Release(at(1.3), discard{}) // both 300 µs late
	if got := l.Counters().TakePeak(); got != 300*time.Microsecond {
		t.Errorf("peak %v, want 300µs", got)
	}
	if got := l.Counters().TakePeak(); got != 0 {
		t.Errorf("peak %v after a take with no release, want 0", got)
	}
	l.Arrive(at(2), 3, 100)
	l.Release(at(3.05), discard{})
	if got := l.Counters().TakePeak(); got != 50*time.Microsecond {
		t.Errorf("peak %v, want 50µs: the earlier 300µs was taken", got)
	}
}

// BenchmarkLineRelease is the line's cost per packet in steady state, an
// arrival and its release, without the kernel: the packet path's own
// work.
func BenchmarkLineRelease(b *testing.B) {
	l, err := New(1, Params{Delay: time.Millisecond, Jitter: 100 * time.Microsecond})
	if err != nil {
		b.Fatal(err)
	}
	now := t0
	id := uint32(0)
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(10 * time.Microsecond)
		l.Arrive(now, id, 1500)
		id++
		l.Release(now, discard{})
	}
}
