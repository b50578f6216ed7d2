package pdcp

import (
	"testing"
	"time"
)

func TestCountersAdd(t *testing.T) {
	var a, b RxCounters
	a.Received, b.Received = 3, 4
	a.HoldTime.Add(time.Millisecond)
	b.HoldTime.Add(3 * time.Millisecond)
	b.HoldTime.Add(5 * time.Millisecond)
	a.Add(&b)
	if a.Received != 7 || a.HoldTime.Count != 3 || a.HoldTime.Max != 5*time.Millisecond || a.HoldTime.Quantile(0.5) < 2900*time.Microsecond {
		t.Errorf("merged %+v, hold p50 %v", a, a.HoldTime.Quantile(0.5))
	}
	x, y := TxCounters{PDUs: 1, Link: [2]uint64{1, 0}}, TxCounters{PDUs: 2, Link: [2]uint64{1, 1}, Bytes: [2]uint64{10, 20}}
	x.Add(&y)
	if x.PDUs != 3 || x.Link != [2]uint64{2, 1} || x.Bytes != [2]uint64{10, 20} {
		t.Errorf("tx %+v", x)
	}
}

// TestSmallestDelayObservesOthers: PDUs another scheduler put on link 0
// make smallest-delay choose link 1, until they have drained.
func TestSmallestDelayObservesOthers(t *testing.T) {
	s := mustScheduler(t, SchedulerConfig{Kind: KindSmallestDelay})
	st := LinkState{RateBps: 8e6, Delay: 10 * time.Millisecond} // 1 byte per µs
	s.SetLinkState(0, st)
	s.SetLinkState(1, st)
	if got := s.Pick(0, 100, 0); got != Link0 {
		t.Fatalf("idle links: %v", got)
	}
	o := s.(Observer)
	for range 100 {
		o.Observe(Link0, 1500, time.Millisecond) // 150 kB: 150 ms on link 0
	}
	if got := s.Pick(1, 100, time.Millisecond); got != Link1 {
		t.Errorf("link 0 150 ms behind: picked %v", got)
	}
	if got := s.Pick(2, 100, time.Second); got != Link0 {
		t.Errorf("a second later both have drained: picked %v", got)
	}
}
