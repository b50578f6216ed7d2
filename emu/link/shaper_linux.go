package link

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/topo"
)

// The rate limiter of one link direction is an HTB qdisc with a single class
// and a bfifo leaf that bounds the queue in bytes:
//
//	1: htb default 1 ── 1:1 class rate R ceil R ── 10: bfifo limit L
//
// HTB rather than TBF because a trace changes the rate up to a hundred times
// a second (Mahimahi windows), and TBF refills its bucket on every change,
// which would hand out a free burst per step; HTB keeps its token state.
const (
	// IPMTU is the packet size whose IP bytes get exactly the configured
	// rate; the rate limiter counts Ethernet frames, EtherHeader bytes
	// more (and the PDCP batch path's UDP encapsulation, Shape.Encap),
	// and the class rate is scaled to make up for it.
	IPMTU       = 1500
	EtherHeader = 14

	htbHandle   = 0x00010000
	classHandle = 0x00010001
	leafHandle  = 0x000a0000
	// outageRate is what an outage (rate 0) becomes: HTB needs a positive
	// rate, and one byte per second holds the queue without dropping it.
	outageRate = 8.0
)

// Shaper is the rate limiter on one interface's egress. SetRate is the trace
// player's hot call; it changes the class in place and never re-creates it.
type Shaper struct {
	node  *topo.NodeNS
	link  netlink.Link
	queue QueueLimit
	// header is the bytes the link adds to each packet the rate counts:
	// EtherHeader, and the encapsulation of the PDUs it carries.
	header int

	mu      sync.Mutex
	rate    float64 // capacity in bit/s at the IP layer (0 during an outage)
	applied float64 // what the HTB class is set to (the hold rate in an outage)
	limit   int64   // bytes, current bfifo limit
}

// NewShaper installs the rate limiter on iface of node with an initial rate
// (bit/s at the IP layer) and queue limit; encap is the bytes each packet
// carries on the link that the rate does not count, besides the Ethernet
// header (Shape.Encap).
func NewShaper(node *topo.NodeNS, iface string, rate float64, q QueueLimit, encap int) (*Shaper, error) {
	l, err := node.Link(iface)
	if err != nil {
		return nil, err
	}
	s := &Shaper{node: node, link: l, queue: q, header: EtherHeader + encap, rate: rate, applied: rate}
	idx := l.Attrs().Index
	htb := netlink.NewHtb(netlink.QdiscAttrs{LinkIndex: idx, Handle: htbHandle, Parent: netlink.HANDLE_ROOT})
	htb.Defcls = 1
	if err := node.Handle.QdiscReplace(htb); err != nil {
		return nil, fmt.Errorf("%s: qdisc replace dev %s root htb: %w", node.NSName, iface, err)
	}
	if err := node.Handle.ClassReplace(s.class(rate, false)); err != nil {
		return nil, fmt.Errorf("%s: class replace dev %s htb rate %s: %w", node.NSName, iface, formatRate(rate), err)
	}
	s.limit = s.limitFor(rate)
	if err := s.setLeaf(s.limit, true); err != nil {
		return nil, err
	}
	return s, nil
}

// class builds the HTB class for an IP-layer rate. A hold (see Hold) gets a
// one-frame burst, so credit saved before an outage cannot let a second
// packet out during it.
func (s *Shaper) class(rate float64, hold bool) *netlink.HtbClass {
	frame := float64(IPMTU + s.header)
	wire := max(rate, outageRate) * frame / IPMTU
	wire = min(wire, math.MaxUint64/2)
	bytesPerSec := wire / 8
	// A burst of about a millisecond of traffic (at least two frames) keeps
	// the shaper smooth at low rates and cheap at high ones.
	burst := uint32(max(2*frame, bytesPerSec/1000))
	if hold {
		burst = uint32(frame)
	}
	return netlink.NewHtbClass(
		netlink.ClassAttrs{LinkIndex: s.link.Attrs().Index, Parent: htbHandle, Handle: classHandle},
		netlink.HtbClassAttrs{Rate: uint64(wire), Ceil: uint64(wire), Buffer: burst, Cbuffer: burst, Quantum: 10 * uint32(frame)},
	)
}

// LimitBytes is the most bytes the queue holds while the rate is rate
// (bit/s), as the limiter counts them (packets with their Ethernet
// header): its limit in packets, bytes or time at that rate.
func (s *Shaper) LimitBytes(rate float64) int64 { return s.limitFor(rate) }

func (s *Shaper) limitFor(rate float64) int64 {
	return s.queue.LimitBytes(rate, IPMTU+s.header)
}

// Header is the bytes the link adds to each packet its rate counts.
func (s *Shaper) Header() int { return s.header }

// setLeaf creates or changes the bfifo leaf. vishvananda/netlink has no
// fifo options, so the request is built here; it runs inside the node's
// namespace because nl requests take their namespace from the thread.
func (s *Shaper) setLeaf(limit int64, create bool) error {
	return s.node.Do(func() error {
		flags := unix.NLM_F_ACK
		if create {
			flags |= unix.NLM_F_CREATE | unix.NLM_F_REPLACE
		}
		req := nl.NewNetlinkRequest(unix.RTM_NEWQDISC, flags)
		req.AddData(&nl.TcMsg{Family: nl.FAMILY_ALL, Ifindex: int32(s.link.Attrs().Index), Handle: leafHandle, Parent: classHandle})
		req.AddData(nl.NewRtAttr(nl.TCA_KIND, nl.ZeroTerminated("bfifo")))
		opt := make([]byte, 4)
		binary.NativeEndian.PutUint32(opt, uint32(min(limit, math.MaxUint32)))
		req.AddData(nl.NewRtAttr(nl.TCA_OPTIONS, opt))
		if _, err := req.Execute(unix.NETLINK_ROUTE, 0); err != nil {
			return fmt.Errorf("%s: qdisc replace dev %s parent 1:1 bfifo limit %d: %w", s.node.NSName, s.link.Attrs().Name, limit, err)
		}
		return nil
	})
}

// SetRate changes the capacity (bit/s at the IP layer; 0 is an outage that
// holds queued packets). A queue limit given in time follows the rate, except
// during an outage, where the queue keeps its last size.
func (s *Shaper) SetRate(rate float64) error { return s.set(rate, rate, false) }

// Hold shapes an outage the trace player times (Player.Drive): the class
// runs at holdRate, which lets at most one packet through before the outage
// ends, while Rate reports 0 (the link is down for the PDCP schedulers) and
// the queue keeps its size.
func (s *Shaper) Hold(holdRate float64) error { return s.set(0, holdRate, true) }

func (s *Shaper) set(rate, classRate float64, hold bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.node.Handle.ClassChange(s.class(classRate, hold)); err != nil {
		return fmt.Errorf("%s: class change dev %s rate %s: %w", s.node.NSName, s.link.Attrs().Name, formatRate(classRate), err)
	}
	s.rate, s.applied = rate, classRate
	if s.queue.Time > 0 && rate > 0 {
		if l := s.limitFor(rate); l != s.limit {
			if err := s.setLeaf(l, false); err != nil {
				return err
			}
			s.limit = l
		}
	}
	return nil
}

// Rate returns the current capacity in bit/s (0 during an outage).
func (s *Shaper) Rate() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rate
}

// ClassRate returns the rate the HTB class runs at: Rate, except during an
// outage, where it is the hold rate.
func (s *Shaper) ClassRate() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied
}

// ShaperStats are the rate limiter's counters.
type ShaperStats struct {
	Bytes          uint64 `json:"bytes"`   // sent by the class (Ethernet frames)
	Packets        uint64 `json:"packets"` // sent by the class
	Drops          uint64 `json:"drops"`   // dropped at the queue limit
	BacklogBytes   uint64 `json:"backlog_bytes"`
	BacklogPackets uint64 `json:"backlog_packets"`
}

// Stats reads the class and leaf counters.
func (s *Shaper) Stats() (ShaperStats, error) {
	var st ShaperStats
	classes, err := s.node.Handle.ClassList(s.link, htbHandle)
	if err != nil {
		return st, fmt.Errorf("%s: class list dev %s: %w", s.node.NSName, s.link.Attrs().Name, err)
	}
	for _, c := range classes {
		if c.Attrs().Handle == classHandle && c.Attrs().Statistics != nil {
			cs := c.Attrs().Statistics
			st.Bytes, st.Packets = cs.Basic.Bytes, uint64(cs.Basic.Packets)
		}
	}
	qdiscs, err := s.node.Handle.QdiscList(s.link)
	if err != nil {
		return st, fmt.Errorf("%s: qdisc list dev %s: %w", s.node.NSName, s.link.Attrs().Name, err)
	}
	for _, q := range qdiscs {
		if q.Attrs().Handle == leafHandle && q.Attrs().Statistics != nil {
			qs := q.Attrs().Statistics
			st.Drops = uint64(qs.Queue.Drops)
			st.BacklogBytes = uint64(qs.Queue.Backlog)
			st.BacklogPackets = uint64(qs.Queue.Qlen)
		}
	}
	return st, nil
}

// formatRate writes a rate for an error message, in Mbit/s.
func formatRate(bps float64) string { return strconv.FormatFloat(bps/1e6, 'g', 6, 64) + "mbit" }
