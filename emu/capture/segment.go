package capture

import "encoding/binary"

// GSO segmentation. A capture point inside a namespace sees what the
// socket handed to the device: on a veth that is often a GSO super-packet
// (up to 64 KiB of TCP, or of UDP from quic-go's UDP_SEGMENT), which leaves
// as many wire packets. Wireshark cannot decrypt a super-packet of QUIC
// packets, and packet counts would not match the sender's, so each is
// written as the segments it stands for: the headers copied with the
// lengths, IPv4 ID and header checksum, TCP sequence number and flags of
// each segment, and its slice of the payload. Transport checksums are left
// as the kernel had them (offloaded, so not final), as any capture on an
// offloading NIC shows them.

// gso describes a super-packet, from the virtio_net_hdr the kernel puts in
// front of each captured packet (PACKET_VNET_HDR).
type gso struct {
	typ  uint8 // virtio GSO type without the ECN bit
	size int   // payload bytes per segment
}

// virtio_net_hdr gso_type values.
const (
	gsoNone  = 0
	gsoTCPv4 = 1
	gsoUDP   = 3 // UFO: IP fragments, written whole
	gsoTCPv6 = 4
	gsoUDPL4 = 5
	gsoECN   = 0x80
)

const maxHeaders = 14 + 4 + 60 + 60 // Ethernet with a VLAN tag, IPv4 options, TCP options

// segmenter splits super-packets; it keeps the header scratch buffer so
// splitting allocates nothing. It belongs to one goroutine.
type segmenter struct {
	hdr [maxHeaders]byte
}

// layout is where the headers of a packet are.
type layout struct {
	ip, l4, payload int  // offsets of the IP header, the TCP/UDP header, the payload
	v4              bool // IPv4, else IPv6
	tcp             bool // TCP, else UDP
}

// parse finds the headers of a captured packet that starts with an
// Ethernet header (ethernet) or the IP header; ok is false for packets that are not plain TCP or UDP over IPv4 or IPv6 with
// their headers complete in pkt.
func parse(pkt []byte, ethernet bool) (l layout, ok bool) {
	if ethernet {
		if len(pkt) < 14 {
			return l, false
		}
		et := binary.BigEndian.Uint16(pkt[12:])
		l.ip = 14
		if et == 0x8100 || et == 0x88a8 {
			if len(pkt) < 18 {
				return l, false
			}
			et = binary.BigEndian.Uint16(pkt[16:])
			l.ip = 18
		}
		switch et {
		case 0x0800, 0x86DD:
		default:
			return l, false
		}
	}
	if len(pkt) < l.ip+1 {
		return l, false
	}
	var proto byte
	switch pkt[l.ip] >> 4 {
	case 4:
		ihl := int(pkt[l.ip]&0x0f) * 4
		if ihl < 20 || len(pkt) < l.ip+ihl {
			return l, false
		}
		l.v4, proto, l.l4 = true, pkt[l.ip+9], l.ip+ihl
	case 6:
		if len(pkt) < l.ip+40 {
			return l, false
		}
		proto, l.l4 = pkt[l.ip+6], l.ip+40 // extension headers: not split
	default:
		return l, false
	}
	switch proto {
	case 6:
		if len(pkt) < l.l4+20 {
			return l, false
		}
		doff := int(pkt[l.l4+12]>>4) * 4
		if doff < 20 || len(pkt) < l.l4+doff {
			return l, false
		}
		l.tcp, l.payload = true, l.l4+doff
	case 17:
		if len(pkt) < l.l4+8 {
			return l, false
		}
		l.payload = l.l4 + 8
	default:
		return l, false
	}
	return l, true
}

// split calls emit for each segment of the super-packet pkt (captured
// bytes; origLen its full length) with the segment's headers, the captured
// part of its payload and its full length. It returns false, emitting
// nothing, when pkt is not a super-packet it can split: the caller writes
// it as it is.
func (s *segmenter) split(pkt []byte, origLen int, ethernet bool, g gso, emit func(head, payload []byte, origLen int)) bool {
	if g.size <= 0 || (g.typ != gsoTCPv4 && g.typ != gsoTCPv6 && g.typ != gsoUDPL4) {
		return false
	}
	l, ok := parse(pkt, ethernet)
	if !ok || l.payload > len(s.hdr) {
		return false
	}
	switch g.typ {
	case gsoTCPv4:
		ok = l.tcp && l.v4
	case gsoTCPv6:
		ok = l.tcp && !l.v4
	case gsoUDPL4:
		ok = !l.tcp
	}
	if !ok {
		return false
	}
	total := origLen - l.payload
	if total <= g.size {
		return false
	}
	be := binary.BigEndian
	var seq uint32
	var id uint16
	if l.tcp {
		seq = be.Uint32(pkt[l.l4+4:])
	}
	if l.v4 {
		id = be.Uint16(pkt[l.ip+4:])
	}
	flags := byte(0)
	if l.tcp {
		flags = pkt[l.l4+13]
	}
	captured := pkt[l.payload:]
	for i, off := 0, 0; off < total; i, off = i+1, off+g.size {
		n := min(g.size, total-off)
		h := s.hdr[:l.payload]
		copy(h, pkt)
		segLen := l.payload - l.ip + n // IP datagram length
		if l.v4 {
			be.PutUint16(h[l.ip+2:], uint16(segLen))
			be.PutUint16(h[l.ip+4:], id+uint16(i))
			be.PutUint16(h[l.ip+10:], 0)
			be.PutUint16(h[l.ip+10:], ipChecksum(h[l.ip:l.l4]))
		} else {
			be.PutUint16(h[l.ip+4:], uint16(segLen-40))
		}
		if l.tcp {
			be.PutUint32(h[l.l4+4:], seq+uint32(off))
			f := flags
			if off+n < total {
				f &^= 0x01 | 0x08 // FIN and PSH only on the last segment
			}
			if i > 0 {
				f &^= 0x80 // CWR only on the first
			}
			h[l.l4+13] = f
		} else {
			be.PutUint16(h[l.l4+4:], uint16(8+n))
		}
		var payload []byte
		if off < len(captured) {
			payload = captured[off:min(off+n, len(captured))]
		}
		emit(h, payload, l.payload+n)
	}
	return true
}

// ipChecksum is the Internet checksum of an IPv4 header.
func ipChecksum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(h[i])<<8 | uint32(h[i+1])
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}
