package pdcp

import (
	"encoding/binary"
	"net/netip"
)

// Real packets for the tests, the SDUs a PDU carries, built field by field
// with correct IPv4 header and UDP/TCP checksums.

const (
	protoTCP = 6
	protoUDP = 17
)

// csum is an RFC 1071 checksum.
func csum(chunks ...[]byte) uint16 {
	var s uint64
	for _, b := range chunks {
		for i := 0; i < len(b); i += 2 {
			hi := uint64(b[i]) << 8
			lo := uint64(0)
			if i+1 < len(b) {
				lo = uint64(b[i+1])
			}
			s += hi | lo
		}
	}
	for s>>16 != 0 {
		s = s&0xFFFF + s>>16
	}
	return ^uint16(s)
}

// l4 builds a UDP or TCP segment with payload and its checksum over the
// pseudo-header of src and dst.
func l4(proto byte, src, dst netip.Addr, payload []byte) []byte {
	var seg []byte
	if proto == protoUDP {
		seg = make([]byte, 8, 8+len(payload))
		binary.BigEndian.PutUint16(seg[0:], 4433)
		binary.BigEndian.PutUint16(seg[2:], 51000)
		binary.BigEndian.PutUint16(seg[4:], uint16(8+len(payload)))
	} else {
		seg = make([]byte, 20, 20+len(payload))
		binary.BigEndian.PutUint16(seg[0:], 443)
		binary.BigEndian.PutUint16(seg[2:], 51001)
		binary.BigEndian.PutUint32(seg[4:], 0x01020304) // seq
		binary.BigEndian.PutUint32(seg[8:], 0x0a0b0c0d) // ack
		seg[12] = 5 << 4                                // data offset
		seg[13] = 0x18                                  // PSH ACK
		binary.BigEndian.PutUint16(seg[14:], 65535)     // window
	}
	seg = append(seg, payload...)
	var pseudo []byte
	pseudo = append(pseudo, src.AsSlice()...)
	pseudo = append(pseudo, dst.AsSlice()...)
	if src.Is4() {
		pseudo = append(pseudo, 0, proto, byte(len(seg)>>8), byte(len(seg)))
	} else {
		pseudo = binary.BigEndian.AppendUint32(pseudo, uint32(len(seg)))
		pseudo = append(pseudo, 0, 0, 0, proto)
	}
	off := 16 // TCP checksum offset
	if proto == protoUDP {
		off = 6
	}
	c := csum(pseudo, seg)
	if c == 0 && proto == protoUDP {
		c = 0xFFFF
	}
	binary.BigEndian.PutUint16(seg[off:], c)
	return seg
}

// ipv4Packet builds an IPv4 packet with optLen bytes of options (a multiple
// of 4, filled with NOPs and an end marker).
func ipv4Packet(proto byte, optLen int, payload []byte) []byte {
	src, dst := netip.MustParseAddr("10.1.0.2"), netip.MustParseAddr("10.2.0.2")
	seg := l4(proto, src, dst, payload)
	hl := 20 + optLen
	p := make([]byte, hl, hl+len(seg))
	p[0] = 0x40 | byte(hl/4)
	p[1] = 0x02 // ECN ECT(0)
	binary.BigEndian.PutUint16(p[2:], uint16(hl+len(seg)))
	binary.BigEndian.PutUint16(p[4:], 0xbeef) // id
	p[6] = 0x40                               // DF
	p[8] = 63                                 // TTL
	p[9] = proto
	copy(p[12:], src.AsSlice())
	copy(p[16:], dst.AsSlice())
	for i := 20; i < hl; i++ {
		p[i] = 1 // NOP
	}
	if optLen > 0 {
		p[hl-1] = 0 // end of options
	}
	binary.BigEndian.PutUint16(p[10:], csum(p[:hl]))
	return append(p, seg...)
}

// ipv6Packet builds an IPv6 packet; with hopByHop it carries an 8-byte
// hop-by-hop options header (PadN) before the UDP/TCP header.
func ipv6Packet(proto byte, hopByHop bool, payload []byte) []byte {
	src, dst := netip.MustParseAddr("fd00:1::2"), netip.MustParseAddr("fd00:2::2")
	seg := l4(proto, src, dst, payload)
	var ext []byte
	first := proto
	if hopByHop {
		ext = []byte{proto, 0, 1, 4, 0, 0, 0, 0} // next, len 0, PadN(4)
		first = 0
	}
	p := make([]byte, 40, 40+len(ext)+len(seg))
	p[0] = 0x60
	p[1] = 0x0a // traffic class / flow label bits
	p[3] = 0x42
	binary.BigEndian.PutUint16(p[4:], uint16(len(ext)+len(seg)))
	p[6] = first
	p[7] = 64
	copy(p[8:], src.AsSlice())
	copy(p[24:], dst.AsSlice())
	p = append(p, ext...)
	return append(p, seg...)
}

// testPackets are the SDUs the header tests, the header fuzz target's seeds
// and the header benchmarks carry.
func testPackets() []struct {
	name string
	pkt  []byte
} {
	quic := make([]byte, 1200) // a QUIC-sized UDP payload
	for i := range quic {
		quic[i] = byte(i * 7)
	}
	return []struct {
		name string
		pkt  []byte
	}{
		{"ipv4-udp", ipv4Packet(protoUDP, 0, quic)},
		{"ipv4-tcp", ipv4Packet(protoTCP, 0, []byte("GET / HTTP/1.1\r\n\r\n"))},
		{"ipv4-tcp-empty", ipv4Packet(protoTCP, 0, nil)},
		{"ipv4-udp-options", ipv4Packet(protoUDP, 12, quic[:333])},
		{"ipv6-udp", ipv6Packet(protoUDP, false, quic)},
		{"ipv6-tcp", ipv6Packet(protoTCP, false, quic[:100])},
		{"ipv6-hbh-udp", ipv6Packet(protoUDP, true, quic[:77])},
	}
}
