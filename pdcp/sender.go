package pdcp

import (
	"fmt"
	"time"
)

// Sender is the transmit side of one PDCP entity (one per device and
// bearer; the proxy keeps one per DC client address). It numbers packets
// with consecutive COUNTs (TX_NEXT starts at 0), encapsulates them and asks
// its scheduler for the link(s). It is not safe for concurrent use.
//
// A Sender owns no scheduler state of its own: several Senders may share one
// Scheduler (batch, duplicate and weighted do not care; smallest-delay then
// accounts for all of them on the shared links) or each have their own
// (adaptive recomputes its split at each of its Sender's batch boundaries).
type Sender struct {
	bits  int
	next  uint64
	sched Scheduler

	// Counters are updated by Send; read them from the Sender's goroutine.
	Counters TxCounters
}

// TxCounters are the transmit side's counters.
type TxCounters struct {
	// PDUs is the number of packets numbered and encapsulated.
	PDUs uint64
	// Link and Bytes count PDUs and their bytes per link; a duplicated PDU
	// counts on both.
	Link  [2]uint64
	Bytes [2]uint64
	// Passed counts packets Encap refused (not IP, too short, …), which were
	// sent unchanged on link 0 without a COUNT.
	Passed uint64
}

// NewSender returns a Sender for SNs of bits bits (12 or 18) using sched.
func NewSender(bits int, sched Scheduler) (*Sender, error) {
	if err := CheckSNBits(bits); err != nil {
		return nil, err
	}
	if sched == nil {
		return nil, fmt.Errorf("pdcp: NewSender: nil scheduler")
	}
	return &Sender{bits: bits, sched: sched}, nil
}

// Send numbers pkt, writes the PDU into dst (see Encap for dst) and returns
// it with the link(s) to send it on. If Encap refuses pkt, Send returns pkt
// itself, Link0 and Encap's error: the caller sends pkt unchanged on link 0
// (the rule for foreign packets) and may count the error; no COUNT is used,
// so the receiver sees no gap.
func (s *Sender) Send(dst, pkt []byte, now time.Duration) (pdu []byte, to Links, err error) {
	count := s.next
	pdu, err = Encap(dst, pkt, SN(count, s.bits), s.bits)
	if err != nil {
		s.Counters.Passed++
		return pkt, Link0, err
	}
	_, to = s.Assign(len(pdu), now)
	return pdu, to, nil
}

// Assign numbers the next PDU, of size bytes (header included), without
// encapsulating anything: the caller writes the header (PutHeader) in
// front of the SDU, as the batch path does in a datagram's headroom. It
// returns the PDU's SN and link(s) and counts it as Send does.
func (s *Sender) Assign(size int, now time.Duration) (sn uint32, to Links) {
	count := s.next
	s.next++
	to = s.sched.Pick(count, size, now)
	s.Counters.PDUs++
	for i := range 2 {
		if to.Has(i) {
			s.Counters.Link[i]++
			s.Counters.Bytes[i] += uint64(size)
		}
	}
	return SN(count, s.bits), to
}

// Next returns TX_NEXT, the COUNT the next PDU will get.
func (s *Sender) Next() uint64 { return s.next }
