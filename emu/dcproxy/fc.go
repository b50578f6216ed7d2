package dcproxy

import (
	"time"

	"github.com/dc-emu/emu/pdcp"
)

// Flow control on the batch path (dc.fc=ddds, docs/flow-control.md). The
// transmitting proxy is the PDCP host; each leg's emulated DU is a
// pdcp.Reporter fed by the leg's queue, the rate limiter on the host's
// side of the link. What the proxy cannot see is which of its PDUs have
// left that queue; what it can read is the queue's backlog (a qdisc dump).
// The queue is one FIFO fed by this proxy alone (the other clients'
// packets cross in the same UDP, tunnelled), so the backlog is the tail of
// the byte stream the proxy wrote to the leg: every byte written before
// the last backlog bytes has left (sent or dropped at the queue's limit),
// and legMarks turns that point of the stream into the highest COUNT that
// left. Other packets in the gateway's queue (an ARP, a neighbour
// solicitation) would count as the proxy's own, late by their size: the
// COUNT that left errs low, never high, and so does the credit.
//
// The DBS is the bearer's (TS 38.425 reports it per data radio bearer,
// and srsRAN's DU reports its RLC queue's size): the other clients' bytes
// in the shared queue do not lower it. Lowering it by them starved the DC
// client of the fairness scenario, whose single-link competitors kept
// more than its buffer queued on each link: 0.74 Mbit/s against their
// 6.6 (docs/measurements/2026-12-08-flow-control.md).

// wireOverhead is what the rate limiter counts of a datagram beyond its
// UDP payload: the Ethernet (14), IPv4 (20) and UDP (8) headers. A GSO
// send is one packet in the queue whose length the kernel counts as its
// segments' (qdisc_pkt_len), so per PDU it is the same.
const wireOverhead = 14 + 20 + 8

// noCount marks a packet in a group that has no COUNT of the flow
// controlled entity: a tunnelled packet, or a steered flow's PDU.
const noCount = ^uint64(0)

// legMarks is the byte stream written to one leg, as flow control reads
// it: how many wire bytes were written (sent) and, for each PDU of the
// entity not yet known to have left the queue, where in the stream it
// ends and its COUNT. It is the transmitting side's (under Proxy.txMu) and
// never allocates after newLegMarks.
type legMarks struct {
	ring    []mark
	head, n int
	sent    uint64
	left    uint64 // the COUNT of the last PDU known to have left the queue
	hasLeft bool
}

// mark is one PDU in the stream: its last byte's position (end) and its
// COUNT.
type mark struct{ end, count uint64 }

// newLegMarks returns the marks of a leg that can have up to n PDUs in
// its queue: a pdcp.Leg refuses credit beyond its own ring of that size.
func newLegMarks(n int) legMarks {
	size := 1
	for size < n {
		size <<= 1
	}
	return legMarks{ring: make([]mark, size)}
}

// wrote accounts a datagram of size bytes of UDP payload written to the
// leg: a PDU of the entity with its COUNT, or another packet (noCount).
// With the ring full (it should not be: the Leg's credit runs out first),
// the PDU takes the newest mark's place, which then leaves with it.
func (m *legMarks) wrote(size int, count uint64) {
	m.sent += uint64(size + wireOverhead)
	if count == noCount {
		return
	}
	mk := mark{end: m.sent, count: count}
	if m.n == len(m.ring) {
		m.ring[(m.head+m.n-1)&(len(m.ring)-1)] = mk
		return
	}
	m.ring[(m.head+m.n)&(len(m.ring)-1)] = mk
	m.n++
}

// queueState is what the leg's queue tells its Reporter after a reading
// of backlog bytes taken when sent was the stream's count (read before the
// dump, so bytes written since are in the backlog but not in sent: the
// point errs low). The PDUs ending within the first sent − backlog bytes
// have left. Bytes is 0: the DBS is the bearer's buffer, and the Leg's
// credit already holds the entity's own bytes beyond Left (see above, and
// pdcp.QueueState.Bytes).
func (m *legMarks) queueState(sent uint64, backlog int) pdcp.QueueState {
	gone := uint64(0)
	if b := uint64(max(backlog, 0)); sent > b {
		gone = sent - b
	}
	for m.n > 0 && m.ring[m.head].end <= gone {
		m.left, m.hasLeft = m.ring[m.head].count, true
		m.head = (m.head + 1) & (len(m.ring) - 1)
		m.n--
	}
	return pdcp.QueueState{Left: m.left, HasLeft: m.hasLeft}
}

// hostBuffer is the PDCP host's buffer of SDUs no leg had credit for
// (dc.fc.full=hold): copies of the wire segments, with room in front for
// the PDCP header, in arrival order, each stamped with when it came. It
// holds at most limit bytes (the two legs' buffers together, at least a
// read's worth); what comes while it is full is dropped before it gets an
// SN. Slots are reused: it allocates only while it grows past its largest
// size yet.
type hostBuffer struct {
	q          []held
	head       int
	free       [][]byte
	bytes, max int
}

// held is one SDU in the host buffer: the slot, the segment at headroom
// in it, and when it came.
type held struct {
	buf  []byte
	size int
	at   time.Duration
}

// heldSlot is a slot's size: the headroom and the largest wire segment
// (the TUN's MTU is 1500).
const heldSlot = headroom + 2048

// push copies seg into the buffer at now if it fits under limit bytes,
// and reports whether it did.
func (h *hostBuffer) push(seg []byte, now time.Duration, limit int) bool {
	if h.bytes+len(seg) > limit || len(seg) > heldSlot-headroom {
		return false
	}
	var b []byte
	if n := len(h.free); n > 0 {
		b, h.free = h.free[n-1], h.free[:n-1]
	} else {
		b = make([]byte, heldSlot)
	}
	copy(b[headroom:], seg)
	if h.head > 0 && len(h.q) == cap(h.q) {
		// Slide the queue down rather than grow it.
		n := copy(h.q, h.q[h.head:])
		clear(h.q[n:])
		h.q, h.head = h.q[:n], 0
	}
	h.q = append(h.q, held{buf: b, size: len(seg), at: now})
	h.bytes += len(seg)
	h.max = max(h.max, h.bytes)
	return true
}

// len is how many SDUs wait.
func (h *hostBuffer) len() int { return len(h.q) - h.head }

// peek fills bufs and sizes with up to len(bufs) SDUs from the head, for
// Tx.Pack at offset headroom, and returns how many.
func (h *hostBuffer) peek(bufs [][]byte, sizes []int) int {
	n := min(len(bufs), h.len())
	for i := range n {
		e := h.q[h.head+i]
		bufs[i], sizes[i] = e.buf, e.size
	}
	return n
}

// pop removes the n SDUs at the head, recording in wait how long each
// waited until now.
func (h *hostBuffer) pop(n int, now time.Duration, wait *pdcp.Histogram) {
	for range n {
		e := &h.q[h.head]
		wait.Add(now - e.at)
		h.bytes -= e.size
		h.free = append(h.free, e.buf)
		*e = held{}
		h.head++
	}
	if h.head == len(h.q) {
		h.q, h.head = h.q[:0], 0
	}
}

// transit is the reports on their way from the legs to the host, in the
// order they were sent: with one backhaul delay for both legs that is
// also the order they arrive in.
type transit struct {
	q    []inTransit
	head int
}

// inTransit is one DDDS frame, due at the host at at.
type inTransit struct {
	leg   int
	at    time.Duration
	frame [pdcp.MaxDeliveryStatusLen]byte
	n     int
}

// send queues leg's frame, due at at.
func (t *transit) send(leg int, frame []byte, at time.Duration) {
	if t.head > 0 && len(t.q) == cap(t.q) {
		n := copy(t.q, t.q[t.head:])
		t.q, t.head = t.q[:n], 0
	}
	r := inTransit{leg: leg, at: at, n: len(frame)}
	copy(r.frame[:], frame)
	t.q = append(t.q, r)
}

// due returns the next frame due at now, and its leg, or false.
func (t *transit) due(now time.Duration) (leg int, frame []byte, ok bool) {
	if t.head == len(t.q) || t.q[t.head].at > now {
		return 0, nil, false
	}
	r := &t.q[t.head]
	t.head++
	if t.head == len(t.q) {
		t.q, t.head = t.q[:0], 0
	}
	return r.leg, r.frame[:r.n], true
}
