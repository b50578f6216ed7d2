package link

import (
	"encoding/binary"
	"fmt"
)

// A rate limiter's counters come from one RTM_GETQDISC dump of its
// namespace: the HTB root qdisc counts what its class sent (bytes and
// packets on dequeue), what it holds (backlog, kept by htb_enqueue and
// htb_dequeue over the whole tree, i.e. the bfifo leaf's) and what the leaf
// dropped at its limit (htb_enqueue counts the leaf's drops on the root).
// One dump reads every direction of a gateway in one system call round,
// and a direction's sent count and backlog come from the same message,
// instead of a class dump and a leaf dump per direction (Shaper.Stats).

// Netlink and tc layout (linux/netlink.h, linux/rtnetlink.h,
// linux/gen_stats.h), spelled out so the parser is plain Go, tested and
// fuzzed without a kernel.
const (
	nlmsgHdrLen  = 16
	tcmsgLen     = 20
	rtattrHdrLen = 4
	nlmsgDone    = 3
	nlmsgError   = 2
	rtmNewQdisc  = 36
	rtmGetQdisc  = 38
	nlmFRequest  = 0x1
	nlmFDump     = 0x300 // NLM_F_ROOT | NLM_F_MATCH
	tcaStats2    = 7
	tcaStatsBas  = 1 // struct gnet_stats_basic: u64 bytes, u32 packets
	tcaStatsQue  = 3 // struct gnet_stats_queue: u32 qlen, backlog, drops, requeues, overlimits
	tcaStatsP64  = 8 // u64 packets, when they exceed 32 bits
	nlaTypeMask  = 0x3fff
	tcHRoot      = 0xffffffff
)

// qdiscCounts are the counters of one root qdisc, as a dump gives them.
type qdiscCounts struct {
	Bytes, Packets uint64
	Backlog, Drops uint64
	Qlen           uint64 // packets queued, a GSO super-packet once
	found          bool
}

// qdiscDumpRequest writes an RTM_GETQDISC dump request with sequence
// number seq into b (at least nlmsgHdrLen+tcmsgLen bytes) and returns its
// length.
func qdiscDumpRequest(b []byte, seq uint32) int {
	n := nlmsgHdrLen + tcmsgLen
	clear(b[:n])
	ne := binary.NativeEndian
	ne.PutUint32(b[0:], uint32(n))
	ne.PutUint16(b[4:], rtmGetQdisc)
	ne.PutUint16(b[6:], nlmFRequest|nlmFDump)
	ne.PutUint32(b[8:], seq)
	return n
}

// parseQdiscDump reads one datagram of a dump reply to request seq. For
// each root qdisc with the given handle on interface ifindex[i] it sets
// out[i]. It reports whether the datagram ended the dump.
func parseQdiscDump(b []byte, seq uint32, handle uint32, ifindex []int, out []qdiscCounts) (done bool, err error) {
	ne := binary.NativeEndian
	for len(b) >= nlmsgHdrLen {
		l := int(ne.Uint32(b))
		if l < nlmsgHdrLen || l > len(b) {
			return false, fmt.Errorf("qdisc dump: message length %d of %d bytes left", l, len(b))
		}
		typ, mseq := ne.Uint16(b[4:]), ne.Uint32(b[8:])
		msg := b[nlmsgHdrLen:l]
		b = b[min(align4(l), len(b)):]
		if mseq != seq {
			continue // a late reply to an earlier request
		}
		switch typ {
		case nlmsgDone:
			return true, nil
		case nlmsgError:
			if len(msg) >= 4 {
				if e := int32(ne.Uint32(msg)); e != 0 {
					return true, fmt.Errorf("qdisc dump: kernel error %d", -e)
				}
			}
			return true, nil
		case rtmNewQdisc:
		default:
			continue
		}
		if len(msg) < tcmsgLen {
			return false, fmt.Errorf("qdisc dump: tcmsg of %d bytes", len(msg))
		}
		idx := int(int32(ne.Uint32(msg[4:])))
		if ne.Uint32(msg[8:]) != handle || ne.Uint32(msg[12:]) != tcHRoot {
			continue
		}
		for i, want := range ifindex {
			if want == idx {
				c, err := parseStats2(msg[tcmsgLen:])
				if err != nil {
					return false, fmt.Errorf("qdisc dump: ifindex %d: %w", idx, err)
				}
				out[i] = c
			}
		}
	}
	return false, nil
}

// parseStats2 finds the basic and queue counters in a qdisc's attributes.
func parseStats2(attrs []byte) (qdiscCounts, error) {
	var c qdiscCounts
	stats, ok, err := findAttr(attrs, tcaStats2)
	if err != nil || !ok {
		return c, fmt.Errorf("no TCA_STATS2 (%v)", err)
	}
	ne := binary.NativeEndian
	basic, okB, err := findAttr(stats, tcaStatsBas)
	if err != nil || !okB || len(basic) < 12 {
		return c, fmt.Errorf("no TCA_STATS_BASIC (%v)", err)
	}
	c.Bytes, c.Packets = ne.Uint64(basic), uint64(ne.Uint32(basic[8:]))
	if p64, ok, _ := findAttr(stats, tcaStatsP64); ok && len(p64) >= 8 {
		c.Packets = ne.Uint64(p64)
	}
	queue, okQ, err := findAttr(stats, tcaStatsQue)
	if err != nil || !okQ || len(queue) < 12 {
		return c, fmt.Errorf("no TCA_STATS_QUEUE (%v)", err)
	}
	c.Qlen, c.Backlog, c.Drops = uint64(ne.Uint32(queue)), uint64(ne.Uint32(queue[4:])), uint64(ne.Uint32(queue[8:]))
	c.found = true
	return c, nil
}

// findAttr returns the payload of the first attribute of type typ.
func findAttr(b []byte, typ uint16) ([]byte, bool, error) {
	ne := binary.NativeEndian
	for len(b) >= rtattrHdrLen {
		l := int(ne.Uint16(b))
		if l < rtattrHdrLen || l > len(b) {
			return nil, false, fmt.Errorf("attribute length %d of %d bytes left", l, len(b))
		}
		if ne.Uint16(b[2:])&nlaTypeMask == typ {
			return b[rtattrHdrLen:l], true, nil
		}
		b = b[min(align4(l), len(b)):]
	}
	return nil, false, nil
}

func align4(n int) int { return (n + 3) &^ 3 }
