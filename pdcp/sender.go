package pdcp

import (
	"fmt"
	"time"
)

// Sender is the transmit side of one PDCP entity (one per device and
// bearer; TxEntities keeps the DC client's and one per steered flow). It
// numbers PDUs with consecutive COUNTs (TX_NEXT starts at 0) and asks its
// scheduler for the link(s); the caller writes the header (PutHeader). It
// is not safe for concurrent use.
//
// A Sender owns no scheduler state of its own: several Senders may share one
// Scheduler (batch, duplicate and weighted do not care; smallest-delay then
// accounts for all of them on the shared links) or each have their own
// (adaptive recomputes its split at each of its Sender's batch boundaries).
type Sender struct {
	bits  int
	next  uint64
	sched Scheduler

	// Counters are updated by Assign; read them from the Sender's
	// goroutine.
	Counters TxCounters
}

// TxCounters are the transmit side's counters.
type TxCounters struct {
	// PDUs is the number of PDUs numbered.
	PDUs uint64
	// Link and Bytes count PDUs and their bytes per link; a duplicated PDU
	// counts on both.
	Link  [2]uint64
	Bytes [2]uint64
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

// Assign numbers the next PDU, of size bytes (header included), and
// returns its SN and link(s), counting it on them. The caller writes the
// header for the SN (PutHeader) in front of the SDU, as emu/dcproxy does
// in a datagram's headroom.
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
