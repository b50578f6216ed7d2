package pdcp

import "time"

// Reporter is a leg's side of DC flow control, the emulated DU: it decides
// when the leg sends a DL DATA DELIVERY STATUS and what the frame says. In
// emu's topology the leg's buffer is the link's queue on the PDCP host's
// side (the shaper's backlog) and "transmitted" is leaving that queue; a
// real DU adds RLC retransmissions and its own scheduler, which emu does
// not model.
//
// A report is due at the first Poll, every Interval after the last report,
// and at once when the DBS reaches or leaves 0 (as the OAI fork's DU does;
// the host must learn at once that a leg stopped or can go again). The DBS
// is Buffer − queued bytes, at least 0. The caller calls Poll whenever the
// queue changes (cheap, no allocation) and at Deadline, its one timer for
// the leg, and sends the frame when Poll says so; FlowControlConfig.Delay
// is the caller's to apply on the way.
//
// A Reporter is not safe for concurrent use.
type Reporter struct {
	cfg      FlowControlConfig
	rate     float64
	limit    int64 // the queue's own limit (SetLimit), 0: none
	buffer   int64
	interval time.Duration
	bits     int

	next    time.Duration // periodic deadline
	started bool          // a report was due already
	zero    bool          // the last report's DBS was 0

	// Counters are updated by Poll; read them from the Reporter's
	// goroutine.
	Counters ReporterCounters
}

// ReporterCounters are a Reporter's counters.
type ReporterCounters struct {
	// Reports counts reports Poll said were due; OnZero those of them due
	// because the DBS reached or left 0 before the interval was up.
	Reports uint64
	OnZero  uint64
}

// QueueState is what Reporter.Poll needs to know of the leg's queue now.
type QueueState struct {
	// Bytes is the bytes queued on the leg (the shaper's backlog); the DBS
	// is FlowControlConfig.Buffer less it.
	//
	// The host's credit already subtracts its PDUs beyond Left, and those
	// are the ones in this queue: with the whole backlog here the entity's
	// own bytes count twice, and one entity alone on the link keeps its
	// backlog near Buffer/2 (TestFlowControlLoop). Pass the backlog less
	// the entity's own bytes beyond Left (0 when the entity is alone) for
	// Buffer to be the whole backlog's cap. emu/dcproxy passes 0: its DBS
	// is the bearer's buffer, as TS 38.425 reports it per radio bearer, and
	// other clients' bytes in a shared queue do not lower it.
	Bytes int
	// Left is the highest COUNT that has left the queue, valid when HasLeft
	// (nothing has left yet otherwise).
	Left    uint64
	HasLeft bool
}

// NewReporter returns a leg's Reporter for SNs of bits bits, configured by
// cfg (zero fields defaulted; Buffer must be > 0). Errors are *FieldErrors
// naming a FlowControlConfig field or SNBits.
func NewReporter(cfg FlowControlConfig, bits int) (*Reporter, error) {
	cfg, err := checkFlowControl(cfg, bits)
	if err != nil {
		return nil, err
	}
	return &Reporter{cfg: cfg, buffer: int64(cfg.Buffer), interval: cfg.Interval, bits: bits}, nil
}

// SetRate tells the Reporter the leg's rate now (bit/s): with
// FlowControlConfig.BufferTime the leg's buffer follows it (BufferAt), and
// until the first SetRate it is 0, so the leg reports DBS 0. With Buffer
// it changes nothing.
func (r *Reporter) SetRate(rateBps float64) {
	r.rate = rateBps
	r.setBuffer()
}

// SetLimit tells the Reporter the most bytes the leg's queue holds (0: no
// limit of its own): the leg never asks for more than that, as a DU never
// asks for more than its RLC queue takes, since what the host sent beyond
// it would be dropped at the queue, each drop a gap the receiver waits
// out.
func (r *Reporter) SetLimit(bytes int) {
	r.limit = int64(max(bytes, 0))
	r.setBuffer()
}

func (r *Reporter) setBuffer() {
	b := int64(r.cfg.Buffer)
	if r.cfg.BufferTime > 0 {
		b = int64(r.cfg.BufferAt(r.rate))
	}
	if r.limit > 0 {
		b = min(b, r.limit)
	}
	r.buffer = b
}

// Buffer returns the leg's buffer in bytes now, the DBS of an empty queue.
func (r *Reporter) Buffer() int { return int(r.buffer) }

// Poll returns the report to send now and true if one is due at now for a
// queue in state q, else false. The report carries the DBS and, once
// something has left the queue, the SN of Left as the highest transmitted
// NR PDCP SN: the leg has no RLC acknowledgements, so this is the RLC UM
// case of §5.4.2.1 (Leg.ReportStatus reads it as such).
func (r *Reporter) Poll(now time.Duration, q QueueState) (DeliveryStatus, bool) {
	dbs := max(r.buffer-int64(q.Bytes), 0)
	zero := dbs == 0
	periodic := !r.started || now >= r.next
	if !periodic && zero == r.zero {
		return DeliveryStatus{}, false
	}
	if !periodic {
		r.Counters.OnZero++
	}
	r.Counters.Reports++
	r.started, r.zero, r.next = true, zero, now+r.interval
	s := DeliveryStatus{DesiredBuffer: uint32(dbs)}
	if q.HasLeft {
		s.HighestTransmitted, s.HasTransmitted = SN(q.Left, r.bits), true
	}
	return s, true
}

// Deadline returns when the next periodic report is due: call Poll then.
// Before the first Poll it is 0 (due at once).
func (r *Reporter) Deadline() time.Duration { return r.next }
