package dcproxy

import (
	"errors"
	"time"

	"github.com/dc-emu/emu/emu/internal/gsofwd"
	"github.com/dc-emu/emu/pdcp"
)

// headroom and bufSize are gsofwd's: the PDCP header is written into the
// headroom in front of each wire segment a TUN read brings.
const (
	headroom = gsofwd.Headroom
	bufSize  = gsofwd.BufSize
)

// Tx is the transmit stage of the PDCP batch path: it gives each wire
// segment of a read batch its own COUNT, writes the PDCP header into the
// headroom in front of the segment (no copy), and groups the PDUs by the
// link the scheduler picked. It is not safe for concurrent use.
type Tx struct {
	// ents are the entities: 0 the DC client's, i+1 steered flow i's.
	ents    pdcp.TxEntities
	tunnels gsofwd.Tunnels
	bits    int
	hl      int
	groups  [2][][]byte
	// counts are the COUNTs of groups' PDUs of entity 0, noCount for the
	// other packets: where flow control's legMarks learn them.
	counts [2][]uint64
	// fc is entity 0's flow control (nil without): Pack asks it before
	// numbering an SDU, and its Wrap gates the scheduler.
	fc *pdcp.FlowControl

	// Tunnelled counts the packets sent bare on their tunnel's link
	// (see gsofwd.Tunnel).
	Tunnelled uint64
	// Dropped counts the SDUs flow control dropped before an SN, no leg
	// having credit for them (pdcp.DropWhenFull).
	Dropped uint64
}

// NewTx returns a transmit stage for SNs of bits bits using sched, under
// flow control fc when it is not nil (the DC client's entity only: fc
// keeps one entity's account, so Steer refuses rules under it).
func NewTx(bits int, sched pdcp.Scheduler, fc *pdcp.FlowControl) (*Tx, error) {
	if fc != nil {
		sched = fc.Wrap(sched)
	}
	ents, err := pdcp.NewTxEntities(bits, sched)
	if err != nil {
		return nil, err
	}
	return &Tx{ents: ents, bits: bits, hl: pdcp.HeaderLen(bits), fc: fc}, nil
}

// Steer gives each rule's flow an entity and scheduler of its own (see
// pdcp.SteerRule); the receiving end must be given the same rules. Call it
// before the first Pack.
func (t *Tx) Steer(rules []pdcp.SteerRule) error {
	if t.fc != nil && len(rules) > 0 {
		return errors.New("dcproxy: flow control keeps one PDCP entity's account: per-flow entities are not supported with it")
	}
	return t.ents.Steer(rules)
}

// Tunnel sends the packets to or from each tunnel's subnet on its link
// bare, without a COUNT (see gsofwd.Tunnel). Call it before the first Pack.
func (t *Tx) Tunnel(rules []gsofwd.Tunnel) error { return t.tunnels.Set(rules) }

// Pack numbers the segments bufs[i][offset:offset+sizes[i]] in order and
// returns the PDUs, header and segment, for link 0 and for link 1, each in
// COUNT order, and how many segments it took; a duplicated PDU is in both
// (the same bytes: the kernel copies it when it sends). A tunnelled
// segment joins its link's group bare, in its place. offset must leave
// room for the header. The groups are valid until the next call.
//
// Under flow control an SDU no leg has credit for gets no COUNT: Pack
// drops it (counted in Dropped) with pdcp.DropWhenFull, and with
// pdcp.HoldWhenFull stops there, leaving it and the segments after it
// to the caller, who holds them until a report gives credit.
func (t *Tx) Pack(bufs [][]byte, sizes []int, offset int, now time.Duration) (groups [2][][]byte, n int) {
	for l := range 2 {
		t.groups[l], t.counts[l] = t.groups[l][:0], t.counts[l][:0]
	}
	for i, b := range bufs {
		seg := b[offset : offset+sizes[i]]
		if l, ok := t.tunnels.Link(seg); ok {
			t.groups[l] = append(t.groups[l], seg)
			t.counts[l] = append(t.counts[l], noCount)
			t.Tunnelled++
			continue
		}
		pdu := b[offset-t.hl : offset+sizes[i]]
		e, snd := t.ents.Sender(seg)
		if t.fc != nil && !t.fc.Admits(len(pdu), now) {
			if t.fc.Config().Policy() == pdcp.HoldWhenFull {
				return t.groups, i
			}
			t.Dropped++
			continue
		}
		count := noCount
		if e == 0 {
			count = snd.Next()
		}
		sn, to := snd.Assign(len(pdu), now)
		t.ents.Sent(e, to, len(pdu), now)
		pdcp.PutHeader(pdu, sn, t.bits)
		for l := range 2 {
			if to.Has(l) {
				t.groups[l] = append(t.groups[l], pdu)
				t.counts[l] = append(t.counts[l], count)
			}
		}
	}
	return t.groups, len(bufs)
}

// Counts returns the COUNTs of the last Pack's groups, entry by entry
// (noCount for a tunnelled packet or a steered flow's PDU).
func (t *Tx) Counts() [2][]uint64 { return t.counts }

// SetLinkState tells every entity's scheduler what link i (0 or 1) is
// like now (rate, delay, queue): adaptive, smallest-delay and
// active-standby decide by it. Call it from Pack's goroutine.
func (t *Tx) SetLinkState(i int, s pdcp.LinkState) { t.ents.SetLinkState(i, s) }

// Counters returns the transmit side's counters, every entity's summed
// (from Pack's goroutine).
func (t *Tx) Counters() pdcp.TxCounters { return t.ents.Counters() }

// burstLen returns how many of the PDUs at the head of group one send
// carries: as many as fit in max bytes, at least one, all if max is 0. A
// burst of 64 KB at once into a link of a few hundred Mbit/s would be a
// millisecond of its rate arriving in a microsecond; capped, each send is
// at most about what the link carries in a millisecond.
func burstLen(group [][]byte, max int) int {
	if max <= 0 {
		return len(group)
	}
	n, bytes := 0, 0
	for n < len(group) && (n == 0 || bytes+len(group[n]) <= max) {
		bytes += len(group[n])
		n++
	}
	return n
}

// burstFor is the most bytes one send puts on a link of rate bit/s: a
// millisecond of it, at most what one send can carry, and one PDU where
// a millisecond holds less (burstLen sends at least one). A send is one
// skb in the link's queue, which a full queue drops whole: sends of two
// PDUs where the queue had room for one lost both, and at the paper's
// 20 Mbit/s the DC client of the fairness scenario lost about twice the
// PDUs it lost on the NFQUEUE path, which drops packet by packet.
func burstFor(rate float64) int {
	const most = 64 << 10
	return int(min(max(rate/8/1000, 1), most))
}
