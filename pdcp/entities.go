package pdcp

import (
	"fmt"
	"time"
)

// TxEntities are one direction's transmitting PDCP entities: entity 0 is
// the DC client's, and Steer adds one per steered flow, with COUNTs and a
// scheduler of its own. The one data path's transmit proxy (emu/dcproxy)
// keeps its entities in one. None of its methods allocates.
type TxEntities struct {
	senders []*Sender
	scheds  []Scheduler
	// observers are the entities' schedulers that account for the PDUs
	// the others put on the links (nil without steering).
	observers []Observer
	cls       Classifier
	bits      int
}

// NewTxEntities returns entity 0 alone, numbering SNs of bits bits and
// choosing links with sched.
func NewTxEntities(bits int, sched Scheduler) (TxEntities, error) {
	s, err := NewSender(bits, sched)
	if err != nil {
		return TxEntities{}, err
	}
	return TxEntities{senders: []*Sender{s}, scheds: []Scheduler{sched}, bits: bits}, nil
}

// Steer gives each rule's flow an entity and scheduler of its own; the
// receiving end must be given the same rules. Call it before the first
// SDU.
func (t *TxEntities) Steer(rules []SteerRule) error {
	if err := t.cls.Set(rules); err != nil {
		return err
	}
	for _, r := range rules {
		s, err := NewScheduler(r.Sched)
		if err != nil {
			return fmt.Errorf("flow on port %d: %w", r.Port, err)
		}
		snd, err := NewSender(t.bits, s)
		if err != nil {
			return err
		}
		t.senders, t.scheds = append(t.senders, snd), append(t.scheds, s)
	}
	// Every entity's scheduler, the DC client's too, accounts for the
	// PDUs the others put on the links.
	t.observers = nil
	if len(rules) > 0 {
		for _, s := range t.scheds {
			o, _ := s.(Observer)
			t.observers = append(t.observers, o)
		}
	}
	return nil
}

// Sender returns the entity of the IP packet sdu and its sender.
func (t *TxEntities) Sender(sdu []byte) (entity int, s *Sender) {
	e := t.cls.Entity(sdu)
	return e, t.senders[e]
}

// Sent tells the other entities' schedulers that entity e put a PDU of
// size bytes on to at now.
func (t *TxEntities) Sent(e int, to Links, size int, now time.Duration) {
	for j, o := range t.observers {
		if o != nil && j != e {
			o.Observe(to, size, now)
		}
	}
}

// SetLinkState tells every entity's scheduler what link i (0 or 1) is
// like now.
func (t *TxEntities) SetLinkState(i int, s LinkState) {
	for _, sc := range t.scheds {
		sc.SetLinkState(i, s)
	}
}

// Counters returns every entity's counters summed.
func (t *TxEntities) Counters() TxCounters {
	var c TxCounters
	for _, s := range t.senders {
		c.Add(&s.Counters)
	}
	return c
}

// RxEntities are one direction's receiving PDCP entities, matching the
// transmitting end's: entity 0 the DC client's, one per steered flow,
// each with its own receive window and t-Reordering. A PDU's entity is
// found from the SDU it carries. None of its methods allocates.
type RxEntities struct {
	recvs       []*Receiver
	cls         Classifier
	bits        int
	tReordering time.Duration
	// maxBuffered is the most SDUs held at once by all entities together
	// (with steering; entity 0's own count says it without).
	maxBuffered int
}

// NewRxEntities returns entity 0 alone, for SNs of bits bits and
// t-Reordering tReordering.
func NewRxEntities(bits int, tReordering time.Duration) (RxEntities, error) {
	r, err := NewReceiver(bits, tReordering)
	if err != nil {
		return RxEntities{}, err
	}
	return RxEntities{recvs: []*Receiver{r}, bits: bits, tReordering: tReordering}, nil
}

// Steer gives each rule's flow a receiving entity of its own. Call it
// before the first PDU.
func (r *RxEntities) Steer(rules []SteerRule) error {
	if err := r.cls.Set(rules); err != nil {
		return err
	}
	for range rules {
		rc, err := NewReceiver(r.bits, r.tReordering)
		if err != nil {
			return err
		}
		r.recvs = append(r.recvs, rc)
	}
	return nil
}

// Receive hands the PDU with SN sn carrying sdu to its entity (Receiver's
// Receive).
func (r *RxEntities) Receive(sn uint32, sdu []byte, h Handle, now time.Duration, deliver DeliverFunc) Verdict {
	return r.recvs[r.cls.Entity(sdu)].Receive(sn, h, now, deliver)
}

// Sample counts the SDUs the entities hold now toward Counters'
// MaxBuffered. Call it once per batch of PDUs, not per PDU: with steering
// it sums every entity's count.
func (r *RxEntities) Sample() {
	if len(r.recvs) > 1 {
		r.maxBuffered = max(r.maxBuffered, r.Buffered())
	}
}

// Deadline is when the first entity's t-Reordering expires, if one runs.
func (r *RxEntities) Deadline() (d time.Duration, running bool) {
	for _, rc := range r.recvs {
		if e, ok := rc.Deadline(); ok && (!running || e < d) {
			d, running = e, true
		}
	}
	return d, running
}

// Expire runs every entity's t-Reordering expiry that is due at now.
func (r *RxEntities) Expire(now time.Duration, deliver DeliverFunc) {
	for _, rc := range r.recvs {
		rc.Expire(now, deliver)
	}
}

// Flush delivers every SDU held, for shutdown.
func (r *RxEntities) Flush(now time.Duration, deliver DeliverFunc) {
	for _, rc := range r.recvs {
		rc.Flush(now, deliver)
	}
}

// Buffered is how many SDUs the entities hold now.
func (r *RxEntities) Buffered() int {
	n := 0
	for _, rc := range r.recvs {
		n += rc.Buffered()
	}
	return n
}

// Counters returns every entity's counters summed; MaxBuffered is the
// most SDUs they held together at a Sample.
func (r *RxEntities) Counters() RxCounters {
	c := r.recvs[0].Counters
	for _, rc := range r.recvs[1:] {
		c.Add(&rc.Counters)
	}
	if len(r.recvs) > 1 {
		c.MaxBuffered = r.maxBuffered
	}
	return c
}
