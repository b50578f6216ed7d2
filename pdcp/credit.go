package pdcp

import "time"

// Leg is the PDCP host's flow-control account of one leg of a bearer
// (TS 38.425 §5.4.2.1): the leg's credit is the desired buffer size (DBS)
// it last reported, less the bytes sent on it with a COUNT beyond the
// highest COUNT it reported delivered (RLC UM and emu's queue:
// transmitted).
// DBS 0 stops the leg. The host asks CanSend before sending a PDU on the
// leg, tells Sent after, and hands every report to Report (or ReportStatus).
//
// The PDUs sent and not yet reported delivered wait in a ring of fixed
// size, allocated by NewFlowControl: at most min(W, MaxLegPDUs) of them,
// W = Window(bits). A full ring means no credit (CanSend refuses, counted
// in LegCounters.Full) whatever the DBS says, so memory stays bounded; W
// is also the most a leg can usefully have in flight, since past it the
// receiver's window and the SN in a report both wrap.
//
// A Leg belongs to one PDCP entity: its COUNTs are that entity's. It is
// not safe for concurrent use; no call allocates.
type Leg struct {
	bits int
	dbs  int64 // the applied report's DBS (bytes)

	ring     []legPDU // sent, not yet reported delivered, in COUNT order
	head, n  int
	inFlight int64 // sum of ring sizes

	sent, delivered       uint64 // highest COUNT sent; applied delivered point
	hasSent, hasDelivered bool
	reported              bool // a report has been applied

	limited      bool // CanSend refused since the last admission or send
	limitedSince time.Duration

	// Counters are updated by every call; read them from the Leg's
	// goroutine.
	Counters LegCounters
}

// MaxLegPDUs caps a Leg's ring (18-bit SNs would allow W = 131072): 8192
// PDUs of 1500 B are 12 MB in flight on one leg, beyond any useful DBS.
const MaxLegPDUs = 8192

// legPDU is one PDU (or several, see Sent) sent and not yet reported
// delivered.
type legPDU struct {
	count uint64
	size  int64
}

// LegCounters are a Leg's counters and its bytes in flight.
type LegCounters struct {
	// Reports counts reports applied; StaleReports those ignored because
	// their delivered point was behind the one applied (see Report).
	Reports      uint64
	StaleReports uint64
	// Refused counts CanSend refusals, which are asks rather than PDUs
	// (FlowControl.Admits and Gate may both ask about one PDU); Full those
	// of them with the ring full.
	Refused uint64
	Full    uint64
	// CreditLimited is the total time the leg had no credit for a PDU it was
	// asked for: from a CanSend refusal to the next CanSend that admits or
	// the next Sent, whichever comes first.
	CreditLimited time.Duration
	// BytesInFlight is the bytes sent on the leg beyond the reported
	// delivered point, now.
	BytesInFlight int
}

// Report is a DDDS as the Leg applies it: its SN already widened to a
// COUNT (Leg.Widen; ReportStatus does both).
type Report struct {
	// DesiredBuffer is the DBS in bytes; 0 stops the leg.
	DesiredBuffer uint32
	// Delivered is the highest COUNT the leg reports delivered (RLC AM) or
	// transmitted (RLC UM, emu's queue), present when HasDelivered.
	Delivered    uint64
	HasDelivered bool
}

func newLeg(bits int, buffer int) Leg {
	return Leg{bits: bits, dbs: int64(buffer), ring: make([]legPDU, min(Window(bits), MaxLegPDUs))}
}

// Credit returns the bytes the leg may still be sent: DBS less the bytes in
// flight. It is ≤ 0 when the leg is full or stopped.
func (l *Leg) Credit() int { return int(l.dbs - l.inFlight) }

// DesiredBuffer returns the DBS of the report applied last (before any,
// FlowControlConfig.Buffer).
func (l *Leg) DesiredBuffer() int { return int(l.dbs) }

// InFlight returns the bytes sent on the leg beyond the reported delivered
// point.
func (l *Leg) InFlight() int { return int(l.inFlight) }

// CanSend reports whether the leg has credit for a PDU of size bytes now:
// DBS > 0, the ring not full, and the bytes in flight plus size within the
// DBS. A refusal starts (or continues) a credit-limited interval, which an
// admission or a Sent at a later now ends (LegCounters.CreditLimited).
func (l *Leg) CanSend(size int, now time.Duration) bool {
	full := l.n == len(l.ring)
	if !full && l.dbs > 0 && l.inFlight+int64(max(size, 0)) <= l.dbs {
		l.endLimited(now)
		return true
	}
	l.Counters.Refused++
	if full {
		l.Counters.Full++
	}
	if !l.limited {
		l.limited, l.limitedSince = true, now
	}
	return false
}

// Sent records a PDU of size bytes with COUNT count sent on the leg at now.
// COUNTs on one leg must increase (the other leg takes the ones between).
// A PDU the ring has no entry for is charged to a later release instead,
// so the credit errs low, never high: one sent while the ring is full (the
// caller did not ask CanSend) joins the newest entry, which then waits for
// its COUNT; one whose COUNT is not above the highest sent joins the newest
// entry too, or, with none left, is released with the next COUNT above.
func (l *Leg) Sent(count uint64, size int, now time.Duration) {
	l.endLimited(now)
	sz := int64(max(size, 0))
	l.inFlight += sz
	l.Counters.BytesInFlight = int(l.inFlight)
	if l.hasSent && count <= l.sent {
		if l.n > 0 {
			l.ring[(l.head+l.n-1)&(len(l.ring)-1)].size += sz
			return
		}
		count = l.sent + 1
	}
	if l.n == len(l.ring) {
		tail := &l.ring[(l.head+l.n-1)&(len(l.ring)-1)]
		tail.count, tail.size = count, tail.size+sz
	} else {
		l.ring[(l.head+l.n)&(len(l.ring)-1)] = legPDU{count: count, size: sz}
		l.n++
	}
	l.sent, l.hasSent = count, true
}

// Report applies a report from the leg: its DBS becomes the leg's, and the
// PDUs up to its delivered COUNT leave the bytes in flight.
//
// Reports may arrive late or out of order (the DDDS carries no report
// number), and an old report must not give credit back: a report whose
// delivered point is behind the one applied, or that has none after one
// was applied, is stale and ignored whole, DBS included (counted in
// StaleReports). The first report always applies. A report at the same
// delivered point as the applied one does apply: its DBS may rise without
// the point moving (other traffic left the leg's queue), and refusing that
// would stop the leg for good. emu's reports travel through a FIFO delay,
// so same-point reports arrive in order there. A delivered COUNT beyond the
// highest sent is read as the highest sent (nothing else can have been
// delivered); with nothing sent, the report's point is ignored and only its
// DBS applies.
func (l *Leg) Report(r Report) {
	if l.reported && l.hasDelivered && (!r.HasDelivered || r.Delivered < l.delivered) {
		l.Counters.StaleReports++
		return
	}
	l.reported = true
	l.Counters.Reports++
	l.dbs = int64(r.DesiredBuffer)
	if !r.HasDelivered || !l.hasSent {
		return
	}
	l.delivered, l.hasDelivered = min(r.Delivered, l.sent), true
	for l.n > 0 && l.ring[l.head].count <= l.delivered {
		l.inFlight -= l.ring[l.head].size
		l.head = (l.head + 1) & (len(l.ring) - 1)
		l.n--
	}
	l.Counters.BytesInFlight = int(l.inFlight)
}

// ReportStatus applies a DDDS frame's content: its DBS and its highest
// delivered SN, or the highest transmitted one when it has no delivered SN
// (RLC UM; emu's legs report what left their queue as transmitted), widened
// by Widen. An SN that widens to no COUNT (nothing sent yet) leaves the
// report with only its DBS.
func (l *Leg) ReportStatus(s DeliveryStatus) {
	r := Report{DesiredBuffer: s.DesiredBuffer}
	switch {
	case s.HasDelivered:
		r.Delivered, r.HasDelivered = l.Widen(s.HighestDelivered)
	case s.HasTransmitted:
		r.Delivered, r.HasDelivered = l.Widen(s.HighestTransmitted)
	}
	l.Report(r)
}

// Widen returns the COUNT a reported SN stands for: WidenSN's nearest COUNT
// to the highest COUNT sent on the leg, taken 2^bits lower if it lies
// above it. A leg cannot have delivered what it was not sent, so this
// reaches 2^bits COUNTs back instead of the receiver's W. It reports false
// when nothing was sent yet or the COUNT would be negative.
func (l *Leg) Widen(sn uint32) (uint64, bool) {
	if !l.hasSent {
		return 0, false
	}
	c, ok := WidenSN(sn, l.bits, l.sent)
	if ok && c > l.sent {
		if c < 1<<l.bits {
			return 0, false
		}
		c -= 1 << l.bits
	}
	return c, ok
}

// endLimited closes a credit-limited interval at now.
func (l *Leg) endLimited(now time.Duration) {
	if l.limited {
		l.limited = false
		l.Counters.CreditLimited += max(now-l.limitedSince, 0)
	}
}

// WidenSN returns the COUNT whose low bits bits (1 to 62) are sn that lies
// nearest near: the one in [near−W, near+W), W = 2^(bits−1). This is the
// receiver's rule for placing an SN around RX_DELIV (TS 38.323 §5.2.2.1;
// Receiver.count, which a test holds it to), here for an SN in a report:
// 12 or 18 bits for a PDCP SN, 24 for an NR-U SN. It reports false when
// that COUNT would be negative (an SN "before" COUNT 0) or bits is out of
// range.
func WidenSN(sn uint32, bits int, near uint64) (uint64, bool) {
	if bits < 1 || bits > 62 {
		return 0, false
	}
	m := uint64(1) << bits
	w := m / 2
	s := uint64(sn) & (m - 1)
	base := near &^ (m - 1) // near's HFN, shifted
	snNear := near & (m - 1)
	switch {
	case snNear >= w && s < snNear-w:
		return base + m + s, true
	case s >= snNear+w:
		if base == 0 {
			return 0, false
		}
		return base - m + s, true
	}
	return base + s, true
}
