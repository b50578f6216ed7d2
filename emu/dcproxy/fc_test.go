package dcproxy

import (
	"testing"
	"time"

	"github.com/dc-emu/emu/pdcp"
)

const ms = time.Millisecond

// TestLegMarksFIFO: the PDUs whose last byte lies before the backlog's
// start have left; tunnelled bytes move the stream but are no PDU; the
// DBS is the bearer's, so the queue's other bytes are not reported.
func TestLegMarksFIFO(t *testing.T) {
	m := newLegMarks(8)
	const w = 1000 + wireOverhead
	m.wrote(1000, 0)       // ends at w
	m.wrote(1000, noCount) // tunnelled: ends at 2w
	m.wrote(1000, 1)       // 3w
	m.wrote(1000, 2)       // 4w
	if q := m.queueState(m.sent, 4*w); q.HasLeft || q.Bytes != 0 {
		t.Errorf("all queued: %+v, want nothing left, no bytes reported", q)
	}
	if q := m.queueState(m.sent, 3*w+10); q.HasLeft {
		t.Errorf("COUNT 0 not wholly out: %+v, want nothing left", q)
	}
	if q := m.queueState(m.sent, 2*w); !q.HasLeft || q.Left != 0 {
		t.Errorf("two PDUs queued: %+v, want left 0", q)
	}
	if q := m.queueState(m.sent, w); !q.HasLeft || q.Left != 1 {
		t.Errorf("one PDU queued: %+v, want left 1", q)
	}
	// A reading whose count was taken before a write: the written bytes
	// are in the backlog, not in sent, so the point errs low.
	sent := m.sent
	m.wrote(1000, 3)
	if q := m.queueState(sent, 2*w); !q.HasLeft || q.Left != 1 {
		t.Errorf("stale count: %+v, want left still 1", q)
	}
	if q := m.queueState(m.sent, 0); !q.HasLeft || q.Left != 3 {
		t.Errorf("empty queue: %+v, want left 3", q)
	}
}

// TestLegMarksFull: with the ring full a PDU takes the newest mark's
// place, whose COUNT then leaves only with it: the point errs low, never
// high.
func TestLegMarksFull(t *testing.T) {
	m := newLegMarks(2)
	for c := range uint64(4) {
		m.wrote(100, c)
	}
	const w = 100 + wireOverhead
	if q := m.queueState(m.sent, 2*w); !q.HasLeft || q.Left != 0 {
		t.Errorf("%+v, want left 0", q)
	}
	if q := m.queueState(m.sent, w); q.Left != 0 {
		t.Errorf("COUNT 2's mark was taken by 3: %+v, want left still 0", q)
	}
	if q := m.queueState(m.sent, 0); q.Left != 3 {
		t.Errorf("%+v, want left 3", q)
	}
}

// TestHostBuffer: SDUs wait in order, up to the limit, and each one's
// wait is recorded when it leaves; slots are reused.
func TestHostBuffer(t *testing.T) {
	var h hostBuffer
	seg := make([]byte, 1000)
	for i := range 5 {
		seg[0] = byte(i)
		if !h.push(seg, time.Duration(i)*ms, 4000) {
			if i != 4 {
				t.Fatalf("push %d refused under the limit", i)
			}
			continue
		}
		if i == 4 {
			t.Fatal("push over the limit taken")
		}
	}
	bufs, sizes := make([][]byte, 3), make([]int, 3)
	if n := h.peek(bufs, sizes); n != 3 || bufs[1][headroom] != 1 || sizes[2] != 1000 {
		t.Fatalf("peek %d, second SDU %d", n, bufs[1][headroom])
	}
	var wait pdcp.Histogram
	h.pop(2, 10*ms, &wait)
	if h.len() != 2 || h.bytes != 2000 || h.max != 4000 || wait.Count != 2 || wait.Max != 10*ms {
		t.Errorf("after pop: %d held, %d B (max %d), %d waits up to %v", h.len(), h.bytes, h.max, wait.Count, wait.Max)
	}
	h.push(seg, 11*ms, 4000)
	if len(h.free) != 1 {
		t.Errorf("%d free slots after reusing one of two, want 1", len(h.free))
	}
	if n := h.peek(bufs, sizes); n != 3 || bufs[0][headroom] != 2 {
		t.Errorf("order after pop: first is %d", bufs[0][headroom])
	}
	if allocs := testing.AllocsPerRun(100, func() {
		h.push(seg, 0, 1<<20)
		h.pop(1, ms, &wait)
	}); allocs != 0 {
		t.Errorf("%v allocations per push and pop with slots to reuse", allocs)
	}
}

// TestTransit: reports arrive in order once due, not before.
func TestTransit(t *testing.T) {
	var tr transit
	tr.send(1, []byte{1, 2}, 5*ms)
	tr.send(0, []byte{3}, 6*ms)
	if _, _, ok := tr.due(4 * ms); ok {
		t.Fatal("a report arrived early")
	}
	if leg, f, ok := tr.due(6 * ms); !ok || leg != 1 || len(f) != 2 {
		t.Fatalf("first due: leg %d %v %v", leg, f, ok)
	}
	if leg, f, ok := tr.due(6 * ms); !ok || leg != 0 || f[0] != 3 {
		t.Fatalf("second due: leg %d %v %v", leg, f, ok)
	}
	if _, _, ok := tr.due(time.Hour); ok {
		t.Fatal("a third report")
	}
}

// flowTx is a transmit stage with flow control of buffer bytes per leg
// under the credit scheduler, policy when full.
func flowTx(t *testing.T, buffer int, policy pdcp.HoldPolicy) (*Tx, *pdcp.FlowControl) {
	t.Helper()
	fc, err := pdcp.NewFlowControl(pdcp.FlowControlConfig{Buffer: buffer, WhenFull: string(policy)}, pdcp.SNBits18)
	if err != nil {
		t.Fatal(err)
	}
	s, err := pdcp.NewScheduler(pdcp.SchedulerConfig{Kind: pdcp.KindCredit})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := NewTx(pdcp.SNBits18, s, fc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		tx.SetLinkState(i, pdcp.LinkState{RateBps: 100e6, Delay: 5 * ms})
	}
	return tx, fc
}

// TestPackHoldsWithoutCredit: Pack numbers SDUs while a leg has credit
// and stops at the first that has none, without giving it a COUNT; a
// report then lets the rest go, numbered on from there.
func TestPackHoldsWithoutCredit(t *testing.T) {
	const size = 1400
	pdu := size + pdcp.HeaderLen(pdcp.SNBits18)
	tx, fc := flowTx(t, 3*pdu, pdcp.HoldWhenFull)
	bufs, sizes := segments(10, size)
	g, n := tx.Pack(bufs, sizes, headroom, 0)
	if n != 6 || len(g[0])+len(g[1]) != 6 || len(g[0]) != 3 {
		t.Fatalf("took %d segments into groups of %d and %d, want 6 (3 each: each leg's credit)", n, len(g[0]), len(g[1]))
	}
	c := tx.Counts()
	if c[0][0] != 0 || c[1][0] == noCount {
		t.Errorf("counts %v", c)
	}
	last0 := c[0][2]
	if next := tx.Counters().PDUs; next != 6 {
		t.Errorf("%d PDUs numbered, want 6: a held SDU gets no COUNT", next)
	}
	// Link 0 reports its last COUNT transmitted and an empty buffer:
	// room for three more there.
	fc.Leg(0).Report(pdcp.Report{DesiredBuffer: uint32(3 * pdu), Delivered: last0, HasDelivered: true})
	g, n = tx.Pack(bufs[6:], sizes[6:], headroom, ms)
	if n != 3 || len(g[0]) != 3 || len(g[1]) != 0 {
		t.Fatalf("after the report: took %d into %d and %d, want 3 on link 0", n, len(g[0]), len(g[1]))
	}
	if c := tx.Counts()[0]; c[0] != 6 || c[2] != 8 {
		t.Errorf("COUNTs after the hold %v, want 6, 7, 8: none skipped", c)
	}
	if tx.Dropped != 0 {
		t.Errorf("dropped %d under hold", tx.Dropped)
	}
}

// TestPackDropsWithoutCredit: with the drop policy an SDU without credit
// is dropped before it gets a COUNT, and the SDUs after it still go when
// a leg has room for them.
func TestPackDropsWithoutCredit(t *testing.T) {
	const size = 1400
	pdu := size + pdcp.HeaderLen(pdcp.SNBits18)
	tx, _ := flowTx(t, 2*pdu, pdcp.DropWhenFull)
	bufs, sizes := segments(10, size)
	g, n := tx.Pack(bufs, sizes, headroom, 0)
	if n != 10 || len(g[0])+len(g[1]) != 4 || tx.Dropped != 6 {
		t.Fatalf("took %d, sent %d, dropped %d: want all 10 taken, 4 sent, 6 dropped", n, len(g[0])+len(g[1]), tx.Dropped)
	}
	if pdus := tx.Counters().PDUs; pdus != 4 {
		t.Errorf("%d COUNTs used, want 4: the receiver must see no gap", pdus)
	}
}

// TestFlowControlRefusesSteering: one FlowControl counts one entity.
func TestFlowControlRefusesSteering(t *testing.T) {
	tx, _ := flowTx(t, 10000, pdcp.HoldWhenFull)
	err := tx.Steer([]pdcp.SteerRule{{Port: 4433, Sched: pdcp.SchedulerConfig{Kind: pdcp.KindBatch}}})
	if err == nil {
		t.Fatal("steering under flow control accepted")
	}
}
