package pdcp

import (
	"testing"
	"time"
)

// TestEntities: a steered flow's SDUs get their own entity and COUNTs on
// the transmitting side and their own receiver on the receiving side; the
// DC client's scheduler observes the steered flow's PDUs; counters sum
// over entities, MaxBuffered counting what they held together; and the
// per-packet calls allocate nothing.
func TestEntities(t *testing.T) {
	tx, err := NewTxEntities(SNBits12, mustScheduler(t, SchedulerConfig{Kind: KindSmallestDelay}))
	if err != nil {
		t.Fatal(err)
	}
	rules := []SteerRule{{Port: 4434, Sched: SchedulerConfig{Kind: KindActiveStandby}.WithDefaults()}}
	if err := tx.Steer(rules); err != nil {
		t.Fatal(err)
	}
	steered, other := portPacket(17, 4434, 40000, 0), portPacket(17, 8443, 40000, 0)
	var sns [2][]uint32
	for i := range 6 {
		sdu := other
		if i%2 == 1 {
			sdu = steered
		}
		e, snd := tx.Sender(sdu)
		sn, to := snd.Assign(len(sdu)+HeaderLen(SNBits12), time.Duration(i)*time.Millisecond)
		tx.Sent(e, to, len(sdu), time.Duration(i)*time.Millisecond)
		sns[e] = append(sns[e], sn)
	}
	if len(sns[0]) != 3 || len(sns[1]) != 3 || sns[0][2] != 2 || sns[1][2] != 2 {
		t.Errorf("SNs per entity %v, want 0 1 2 each", sns)
	}
	if c := tx.Counters(); c.PDUs != 6 {
		t.Errorf("transmit counters %+v, want 6 PDUs", c)
	}

	rx, err := NewRxEntities(SNBits12, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if err := rx.Steer(rules); err != nil {
		t.Fatal(err)
	}
	var delivered int
	deliver := func(Handle, Reason) { delivered++ }
	// Each entity misses its SN 0: both hold what follows, together.
	for _, p := range []struct {
		sn  uint32
		sdu []byte
	}{{1, other}, {2, other}, {1, steered}} {
		if v := rx.Receive(p.sn, p.sdu, Handle{}, 0, deliver); v != Buffered {
			t.Fatalf("SN %d: %v, want held", p.sn, v)
		}
	}
	rx.Sample()
	if rx.Buffered() != 3 || delivered != 0 {
		t.Errorf("held %d, delivered %d; want 3 and 0", rx.Buffered(), delivered)
	}
	if d, ok := rx.Deadline(); !ok || d != 100*time.Millisecond {
		t.Errorf("deadline %v %v, want 100ms", d, ok)
	}
	rx.Expire(100*time.Millisecond, deliver)
	if delivered != 3 || rx.Buffered() != 0 {
		t.Errorf("after expiry: delivered %d, held %d; want 3 and 0", delivered, rx.Buffered())
	}
	if c := rx.Counters(); c.Received != 3 || c.MaxBuffered != 3 || c.GivenUp != 2 {
		t.Errorf("receive counters %+v, want 3 received, 3 held at most, 2 given up", c)
	}
	if a := testing.AllocsPerRun(1000, func() {
		e, snd := tx.Sender(steered)
		sn, to := snd.Assign(100, 0)
		tx.Sent(e, to, 100, 0)
		rx.Receive(sn, steered, Handle{}, 0, deliver)
	}); a != 0 {
		t.Errorf("a PDU through the entities allocates %.0f times", a)
	}
}
