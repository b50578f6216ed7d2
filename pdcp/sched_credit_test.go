package pdcp

import (
	"strings"
	"testing"
	"time"
)

// fakeGate admits a leg while room[leg] ≥ size, and remembers the asks.
type fakeGate struct {
	room [2]int
	asks int
}

func (g *fakeGate) admits(leg, size int, _ time.Duration) bool {
	g.asks++
	return g.room[leg] >= size
}

func TestCreditScheduler(t *testing.T) {
	// Without a gate (flow control off) it is smallest-delay.
	for _, states := range [][2]LinkState{
		{},
		{{RateBps: 20e6, Delay: 10 * ms}, {RateBps: 20e6, Delay: 30 * ms}},
		{{RateBps: 20e6, Delay: 10 * ms, QueuedBytes: 1 << 20}, {RateBps: 5e6, Delay: 30 * ms}},
		{{}, {RateBps: 5e6}},
	} {
		c := Scheduler(&creditScheduler{last: -1})
		d := mustScheduler(t, SchedulerConfig{Kind: KindSmallestDelay})
		for i, st := range states {
			c.SetLinkState(i, st)
			d.SetLinkState(i, st)
		}
		if pc, pd := pattern(c, 0, 300, time.Second), pattern(d, 0, 300, time.Second); pc != pd {
			t.Errorf("%+v: credit without a gate %s, smallest-delay %s", states, pc, pd)
		}
	}

	g := &fakeGate{room: [2]int{1 << 20, 1 << 20}}
	s := &creditScheduler{gate: g, last: -1}
	s.SetLinkState(0, LinkState{RateBps: 20e6, Delay: 10 * ms})
	s.SetLinkState(1, LinkState{RateBps: 20e6, Delay: 30 * ms})
	// Both admit: the earliest arrival, link 0 until its 20 ms head start
	// is used up (as smallest-delay).
	if got := pattern(s, 0, 34, 0); got != strings.Repeat("0", 34) {
		t.Errorf("both admit: %s", got)
	}
	// Link 0 has no credit: link 1, though it arrives later.
	g.room[0] = 0
	if got := pattern(s, 34, 3, 0); got != "111" {
		t.Errorf("link 0 without credit: %s", got)
	}
	// Neither has credit: NoLinks, and no backlog is charged.
	g.room[1] = 1499
	before := s.backlog
	if got := s.Pick(37, 1500, 0); got != NoLinks {
		t.Errorf("no credit: %v, want NoLinks", got)
	}
	if s.backlog != before {
		t.Errorf("a held PDU changed the backlog estimate: %v → %v", before, s.backlog)
	}
	if got := s.Pick(37, 1400, 0); got != Link1 {
		t.Errorf("a PDU that fits link 1's credit: %v", got)
	}
	// A down leg with credit is used only when no up leg has credit.
	g.room = [2]int{1 << 20, 1 << 20}
	s.SetLinkState(0, LinkState{RateBps: 0, Delay: ms})
	if got := pattern(s, 40, 3, 0); got != "111" {
		t.Errorf("link 0 down: %s", got)
	}
	g.room[1] = 0
	if got := pattern(s, 43, 2, 0); got != "00" {
		t.Errorf("link 0 down, link 1 without credit: %s", got)
	}
	if g.asks == 0 {
		t.Error("the gate was never asked")
	}
}

// TestWrapGivesCreditSchedulerItsGate: Wrap gates every scheduler, and
// the credit scheduler also picks only among the legs with credit, so its
// backlog estimate follows where PDUs really went.
func TestWrapGivesCreditSchedulerItsGate(t *testing.T) {
	fc := newTestFlowControl(t, 5000, SNBits12)
	inner := Scheduler(&creditScheduler{last: -1})
	s := fc.Wrap(inner)
	if inner.(*creditScheduler).gate != fc {
		t.Fatal("Wrap did not give the credit scheduler its gate")
	}
	s.SetLinkState(0, LinkState{RateBps: 20e6, Delay: 10 * ms})
	s.SetLinkState(1, LinkState{RateBps: 20e6, Delay: 30 * ms})
	// 5000 B of credit per leg: 3 PDUs on link 0, 3 on link 1, then hold.
	if got := pattern(s, 0, 7, 0); got != "000111?" {
		t.Errorf("5000 B per leg: %s, want 000111?", got)
	}
	if b := inner.(*creditScheduler).backlog; b != [2]float64{4500, 4500} {
		t.Errorf("backlog estimate %v, want 4500 on each", b)
	}
	if fc.Leg(0).InFlight() != 4500 || fc.Leg(1).InFlight() != 4500 {
		t.Errorf("in flight %d, %d", fc.Leg(0).InFlight(), fc.Leg(1).InFlight())
	}
	// A second Wrap does not take the gate from the first.
	other := newTestFlowControl(t, 5000, SNBits12)
	other.Wrap(inner)
	if inner.(*creditScheduler).gate != fc {
		t.Error("a second Wrap replaced the gate")
	}
}

// TestCreditSchedulerRuns: over two equal legs, smallest-delay alternates
// PDU by PDU; the credit scheduler sends runs, switching only when the
// other leg is earlier by more than creditStick (PDUs of 1500 B at
// 20 Mbit/s are 0.6 ms each: runs of three or four), and still uses the
// earlier leg alone while the other is later by more than that.
func TestCreditSchedulerRuns(t *testing.T) {
	s := mustScheduler(t, SchedulerConfig{Kind: KindCredit})
	d := mustScheduler(t, SchedulerConfig{Kind: KindSmallestDelay})
	for i := range 2 {
		s.SetLinkState(i, LinkState{RateBps: 20e6, Delay: 10 * ms})
		d.SetLinkState(i, LinkState{RateBps: 20e6, Delay: 10 * ms})
	}
	if got := pattern(d, 0, 8, 0); got != "01010101" {
		t.Errorf("smallest-delay over equal legs: %s", got)
	}
	got := pattern(s, 0, 24, 0)
	runs := strings.FieldsFunc(strings.ReplaceAll(strings.ReplaceAll(got, "01", "0|1"), "10", "1|0"), func(r rune) bool { return r == '|' })
	for _, r := range runs[1 : len(runs)-1] {
		if len(r) < 3 || len(r) > 4 {
			t.Errorf("credit over equal legs: %s, a run of %d", got, len(r))
			break
		}
	}
	if n0 := strings.Count(got, "0"); n0 < 10 || n0 > 14 {
		t.Errorf("credit over equal legs: %s, %d of 24 on link 0", got, n0)
	}
	// Link 1 10 ms later: link 0 alone until its backlog makes up the
	// 10 ms (16 PDUs), as smallest-delay.
	s = mustScheduler(t, SchedulerConfig{Kind: KindCredit})
	s.SetLinkState(0, LinkState{RateBps: 20e6, Delay: 10 * ms})
	s.SetLinkState(1, LinkState{RateBps: 20e6, Delay: 20 * ms})
	if got := pattern(s, 0, 16, 0); got != strings.Repeat("0", 16) {
		t.Errorf("link 1 10 ms later: %s", got)
	}
}
