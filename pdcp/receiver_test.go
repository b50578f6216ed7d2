package pdcp

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

const ms = time.Millisecond

// recorder collects deliveries.
type recorder struct {
	ids     []uint32
	reasons []Reason
}

func (r *recorder) deliver(h Handle, why Reason) {
	r.ids = append(r.ids, h.ID)
	r.reasons = append(r.reasons, why)
}

func (r *recorder) take() ([]uint32, []Reason) {
	ids, why := r.ids, r.reasons
	r.ids, r.reasons = nil, nil
	return ids, why
}

// step is one event of a worked example: the arrival of SN sn (carrying
// true COUNT id), or an Expire call when expire is set.
type step struct {
	at      time.Duration
	sn      uint32
	id      uint32
	expire  bool
	verdict Verdict
	deliv   []uint32 // true COUNTs delivered by this step, in order
	why     Reason   // reason of every delivery of this step
	state   *State   // state after the step, when given
}

func arrive(at time.Duration, sn uint32, v Verdict, deliv ...uint32) step {
	return step{at: at, sn: sn, id: sn, verdict: v, deliv: deliv}
}

func expireAt(at time.Duration, deliv ...uint32) step {
	return step{at: at, expire: true, deliv: deliv, why: OnExpiry}
}

func (s step) count(id uint32) step   { s.id = id; return s }
func (s step) with(st State) step     { s.state = &st; return s }
func (s step) reason(why Reason) step { s.why = why; return s }
func st(next, deliv, reord int64, on bool) State {
	return State{Next: next, Deliv: deliv, Reord: reord, TimerRunning: on}
}

// inOrder delivers COUNTs [0, n) in order at time 0 to set a starting state.
func inOrder(t *testing.T, r *Receiver, n int) {
	t.Helper()
	var rec recorder
	for c := range n {
		if v := r.Receive(SN(uint64(c), r.bits), Handle{ID: uint32(c)}, 0, rec.deliver); v != Delivered {
			t.Fatalf("setup: COUNT %d: %v", c, v)
		}
	}
}

func runSteps(t *testing.T, r *Receiver, steps []step) {
	t.Helper()
	var rec recorder
	for i, s := range steps {
		what := fmt.Sprintf("step %d (t=%v, ", i, s.at)
		if s.expire {
			what += "expire)"
			r.Expire(s.at, rec.deliver)
		} else {
			what += fmt.Sprintf("SN %d)", s.sn)
			if v := r.Receive(s.sn, Handle{ID: s.id}, s.at, rec.deliver); v != s.verdict {
				t.Errorf("%s: verdict %v, want %v", what, v, s.verdict)
			}
		}
		ids, why := rec.take()
		if !slices.Equal(ids, s.deliv) {
			t.Errorf("%s: delivered %v, want %v", what, ids, s.deliv)
		}
		for _, w := range why {
			if w != s.why {
				t.Errorf("%s: delivery reason %v, want %v", what, w, s.why)
				break
			}
		}
		if s.state != nil {
			if got := r.State(); got != *s.state {
				t.Errorf("%s: state %+v, want %+v", what, got, *s.state)
			}
		}
	}
}

func newTestReceiver(t testing.TB, bits int) *Receiver {
	t.Helper()
	r, err := NewReceiver(bits, 200*ms)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestWorkedExamples reproduces examples A–G of pdcp-reordering.md §4 (12-bit
// SN, t-Reordering 200 ms) and the stale-copy example of §6.
func TestWorkedExamples(t *testing.T) {
	cases := []struct {
		name  string
		setup int // COUNTs delivered in order first
		steps []step
		check func(t *testing.T, r *Receiver)
	}{
		{name: "A in order", steps: []step{
			arrive(0, 0, Delivered, 0).with(st(1, 1, 0, false)),
			arrive(1*ms, 1, Delivered, 1).with(st(2, 2, 0, false)),
			arrive(2*ms, 2, Delivered, 2).with(st(3, 3, 0, false)),
		}, check: func(t *testing.T, r *Receiver) {
			c := r.Counters
			if c.Held != 0 || c.Reordered != 0 || c.DeliveredInOrder != 3 || c.HoldTime.Max != 0 {
				t.Errorf("counters %+v", c)
			}
		}},
		{name: "B gap filled before expiry", steps: []step{
			arrive(0, 0, Delivered, 0).with(st(1, 1, 0, false)),
			arrive(10*ms, 2, Buffered).with(st(3, 1, 3, true)),
			arrive(20*ms, 3, Buffered).with(st(4, 1, 3, true)),
			arrive(60*ms, 1, Delivered, 1, 2, 3).with(st(4, 4, 3, false)),
		}, check: func(t *testing.T, r *Receiver) {
			c := r.Counters
			if c.Reordered != 1 || c.Held != 2 || c.MaxBuffered != 2 || c.Expiries != 0 {
				t.Errorf("counters %+v", c)
			}
			if c.HoldTime.Max != 50*ms {
				t.Errorf("max hold %v, want 50ms (SDU 2)", c.HoldTime.Max)
			}
		}},
		{name: "C expiry delivers up to the next gap", steps: []step{
			arrive(0, 0, Delivered, 0),
			arrive(10*ms, 2, Buffered).with(st(3, 1, 3, true)),
			arrive(20*ms, 3, Buffered),
			arrive(30*ms, 5, Buffered),
			arrive(40*ms, 6, Buffered).with(st(7, 1, 3, true)),
			expireAt(209 * ms).with(st(7, 1, 3, true)), // not yet due
			expireAt(210*ms, 2, 3).with(st(7, 4, 7, true)),
			arrive(250*ms, 1, DiscardOld).with(st(7, 4, 7, true)),
			expireAt(409 * ms),
			expireAt(410*ms, 5, 6).with(st(7, 7, 7, false)),
		}, check: func(t *testing.T, r *Receiver) {
			c := r.Counters
			if c.GivenUp != 2 || c.OldDiscarded != 1 || c.DeliveredOnExpiry != 4 || c.Expiries != 2 {
				t.Errorf("counters %+v", c)
			}
		}},
		{name: "D hole at RX_REORD waits twice", steps: []step{
			arrive(0, 0, Delivered, 0),
			arrive(10*ms, 2, Buffered).with(st(3, 1, 3, true)),
			arrive(20*ms, 4, Buffered),
			arrive(30*ms, 5, Buffered).with(st(6, 1, 3, true)),
			expireAt(210*ms, 2).with(st(6, 3, 6, true)),
			arrive(360*ms, 3, Delivered, 3, 4, 5).reason(InOrder).with(st(6, 6, 6, false)),
		}, check: func(t *testing.T, r *Receiver) {
			if d, _ := r.Deadline(); d != 410*ms {
				t.Errorf("restarted deadline %v, want 410ms", d)
			}
			if got := r.Counters.HoldTime.Max; got != 340*ms {
				t.Errorf("max hold %v, want 340ms (SDU 4, almost 2 × t-Reordering)", got)
			}
		}},
		{name: "E duplicates", steps: []step{
			arrive(0, 0, Delivered, 0),
			arrive(1*ms, 0, DiscardDuplicate),
			arrive(2*ms, 2, Buffered),
			arrive(3*ms, 2, DiscardDuplicate),
			arrive(4*ms, 1, Delivered, 1, 2),
			arrive(5*ms, 1, DiscardDuplicate).with(st(3, 3, 3, false)),
		}, check: func(t *testing.T, r *Receiver) {
			if c := r.Counters; c.DuplicatesDiscarded != 3 || c.Delivered != 3 || c.OldDiscarded != 0 {
				t.Errorf("counters %+v", c)
			}
		}},
		{name: "F SN wrap-around", setup: 4094, steps: []step{
			arrive(10*ms, 4095, Buffered).with(st(4096, 4094, 4096, true)),
			arrive(11*ms, 0, Buffered).count(4096).with(st(4097, 4094, 4096, true)),
			arrive(12*ms, 1, Buffered).count(4097).with(st(4098, 4094, 4096, true)),
			arrive(13*ms, 4094, Delivered, 4094, 4095, 4096, 4097).with(st(4098, 4098, 4096, false)),
			arrive(14*ms, 4095, DiscardDuplicate).count(99999).with(st(4098, 4098, 4096, false)),
		}},
		{name: "G out of window", setup: 100, steps: []step{
			arrive(10*ms, 2200, DiscardOld).with(st(100, 100, 0, false)),
			arrive(11*ms, 100+2048, DiscardOld).with(st(100, 100, 0, false)),  // first SN out of window
			arrive(12*ms, 100+2047, Buffered).with(st(2148, 100, 2148, true)), // last SN in window
		}, check: func(t *testing.T, r *Receiver) {
			if c := r.Counters; c.OldDiscarded != 2 {
				t.Errorf("counters %+v", c)
			}
		}},
		{name: "stale copy aliases forward (§6)", setup: 3000, steps: []step{
			arrive(10*ms, 900, Buffered).count(900).with(st(4997, 3000, 4997, true)),
			expireAt(210*ms, 900).with(st(4997, 4997, 4997, false)),
			arrive(211*ms, 3002%4096, DiscardOld).count(3002), // real PDUs now discarded
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestReceiver(t, SNBits12)
			inOrder(t, r, tc.setup)
			runSteps(t, r, tc.steps)
			if tc.check != nil {
				tc.check(t, r)
			}
			checkAccounting(t, r)
		})
	}
}

// checkAccounting checks the counters add up.
func checkAccounting(t *testing.T, r *Receiver) {
	t.Helper()
	c := r.Counters
	if c.Delivered != c.DeliveredInOrder+c.DeliveredOnExpiry+c.DeliveredOnFlush {
		t.Errorf("Delivered %d ≠ in order %d + expiry %d + flush %d", c.Delivered, c.DeliveredInOrder, c.DeliveredOnExpiry, c.DeliveredOnFlush)
	}
	if c.Received != c.Delivered+uint64(r.Buffered())+c.DuplicatesDiscarded+c.OldDiscarded {
		t.Errorf("Received %d ≠ delivered %d + buffered %d + duplicates %d + old %d", c.Received, c.Delivered, r.Buffered(), c.DuplicatesDiscarded, c.OldDiscarded)
	}
	if c.HoldTime.Count != c.Delivered {
		t.Errorf("hold-time samples %d ≠ deliveries %d", c.HoldTime.Count, c.Delivered)
	}
}

func TestReceiverDeadlineAndFlush(t *testing.T) {
	r := newTestReceiver(t, SNBits12)
	var rec recorder
	if _, on := r.Deadline(); on {
		t.Fatal("timer running on a fresh receiver")
	}
	r.Receive(1, Handle{ID: 1}, 5*ms, rec.deliver)
	r.Receive(3, Handle{ID: 3}, 6*ms, rec.deliver)
	if d, on := r.Deadline(); !on || d != 205*ms {
		t.Fatalf("Deadline = %v, %v; want 205ms, true", d, on)
	}
	// A Receive after the deadline runs the expiry first.
	r.Receive(6, Handle{ID: 6}, 300*ms, rec.deliver)
	ids, _ := rec.take()
	if !slices.Equal(ids, []uint32{1}) { // RX_REORD was 2: only 1 is below it
		t.Fatalf("late Receive delivered %v, want [1]", ids)
	}
	r.Flush(310*ms, rec.deliver)
	ids, why := rec.take()
	if !slices.Equal(ids, []uint32{3, 6}) || why[0] != OnFlush {
		t.Fatalf("Flush delivered %v %v, want [3 6] by flush", ids, why)
	}
	if s := r.State(); s != st(7, 7, 4, false) || r.Buffered() != 0 {
		t.Fatalf("after Flush: %+v, %d buffered", s, r.Buffered())
	}
	// Still usable: 7 is in order.
	if v := r.Receive(7, Handle{ID: 7}, 311*ms, rec.deliver); v != Delivered {
		t.Fatalf("after Flush: %v", v)
	}
	checkAccounting(t, r)
	if g := r.Counters.GivenUp; g != 4 { // 0, 2, 4, 5
		t.Errorf("GivenUp %d, want 4", g)
	}
}

func TestReceiverZeroTReordering(t *testing.T) {
	r, err := NewReceiver(SNBits12, 0)
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	r.Receive(2, Handle{ID: 2}, 0, rec.deliver)
	r.Receive(5, Handle{ID: 5}, 0, rec.deliver)
	r.Expire(0, rec.deliver)
	if ids, _ := rec.take(); !slices.Equal(ids, []uint32{2, 5}) {
		t.Fatalf("t-Reordering 0: delivered %v, want [2 5] at once", ids)
	}
	if _, on := r.Deadline(); on {
		t.Fatal("timer still running")
	}
}

func TestNewReceiverErrors(t *testing.T) {
	if _, err := NewReceiver(16, 200*ms); err == nil || err.Error() != "pdcp: SNBits: must be 12 or 18 (got 16)" {
		t.Errorf("bits 16: %v", err)
	}
	if _, err := NewReceiver(12, -ms); err == nil || err.Error() != "pdcp: TReordering: must not be negative (got -1ms)" {
		t.Errorf("negative t-Reordering: %v", err)
	}
}
