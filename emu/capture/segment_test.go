package capture

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// superPacket builds an Ethernet frame with an IPv4 or IPv6 header and a
// TCP (with 12 bytes of options) or UDP header, carrying payload.
func superPacket(v6, tcp bool, payload []byte) []byte {
	be := binary.BigEndian
	p := make([]byte, 14, 14+40+32+len(payload))
	be.PutUint16(p[12:], 0x0800)
	l4len := 8
	proto := byte(17)
	if tcp {
		l4len, proto = 32, 6
	}
	if v6 {
		be.PutUint16(p[12:], 0x86DD)
		ip := make([]byte, 40)
		ip[0] = 0x60
		be.PutUint16(ip[4:], uint16(l4len+len(payload)))
		ip[6], ip[7] = proto, 64
		p = append(p, ip...)
	} else {
		ip := make([]byte, 20)
		ip[0] = 0x45
		be.PutUint16(ip[2:], uint16(20+l4len+len(payload)))
		be.PutUint16(ip[4:], 0xfffe) // wraps while splitting
		ip[8], ip[9] = 64, proto
		p = append(p, ip...)
	}
	l4 := make([]byte, l4len)
	be.PutUint16(l4, 40000)
	be.PutUint16(l4[2:], 443)
	if tcp {
		be.PutUint32(l4[4:], 0xfffff000) // wraps too
		l4[12] = 8 << 4
		l4[13] = 0x80 | 0x10 | 0x08 | 0x01 // CWR ACK PSH FIN
	} else {
		be.PutUint16(l4[4:], uint16(8+len(payload)))
	}
	p = append(p, l4...)
	return append(p, payload...)
}

type segment struct {
	head, payload []byte
	orig          int
}

func splitAll(s *segmenter, pkt []byte, orig int, g gso) ([]segment, bool) {
	var segs []segment
	ok := s.split(pkt, orig, true, g, func(head, payload []byte, orig int) {
		segs = append(segs, segment{bytes.Clone(head), bytes.Clone(payload), orig})
	})
	return segs, ok
}

func TestSplit(t *testing.T) {
	be := binary.BigEndian
	payload := make([]byte, 5000)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	for _, tc := range []struct {
		name    string
		v6, tcp bool
		typ     uint8
	}{
		{"tcp4", false, true, gsoTCPv4},
		{"tcp6", true, true, gsoTCPv6},
		{"udp4", false, false, gsoUDPL4},
		{"udp6", true, false, gsoUDPL4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkt := superPacket(tc.v6, tc.tcp, payload)
			var s segmenter
			segs, ok := splitAll(&s, pkt, len(pkt), gso{typ: tc.typ, size: 1448})
			if !ok || len(segs) != 4 {
				t.Fatalf("split: %v, %d segments", ok, len(segs))
			}
			var joined []byte
			for i, sg := range segs {
				hl := len(pkt) - len(payload)
				ip, l4 := sg.head[14:], sg.head[hl-8:]
				if tc.tcp {
					l4 = sg.head[hl-32:]
				}
				n := len(sg.payload)
				if want := min(1448, len(payload)-i*1448); n != want || sg.orig != hl+n {
					t.Fatalf("segment %d: %d payload bytes, length %d", i, n, sg.orig)
				}
				if tc.v6 {
					if got := int(be.Uint16(ip[4:])); got != len(l4)+n {
						t.Errorf("segment %d: payload length %d", i, got)
					}
				} else {
					if got := int(be.Uint16(ip[2:])); got != 20+len(l4)+n {
						t.Errorf("segment %d: total length %d", i, got)
					}
					if id := be.Uint16(ip[4:]); id != uint16(0xfffe+i) {
						t.Errorf("segment %d: id %#x", i, id)
					}
					if ipChecksum(ip[:20]) != 0 {
						t.Errorf("segment %d: bad IPv4 header checksum", i)
					}
				}
				if tc.tcp {
					if seq := be.Uint32(l4[4:]); seq != 0xfffff000+uint32(i*1448) {
						t.Errorf("segment %d: seq %#x", i, seq)
					}
					wantFlags := byte(0x10)
					if i == 0 {
						wantFlags |= 0x80
					}
					if i == len(segs)-1 {
						wantFlags |= 0x08 | 0x01
					}
					if l4[13] != wantFlags {
						t.Errorf("segment %d: flags %#x, want %#x", i, l4[13], wantFlags)
					}
				} else if got := int(be.Uint16(l4[4:])); got != 8+n {
					t.Errorf("segment %d: udp length %d", i, got)
				}
				joined = append(joined, sg.payload...)
			}
			if !bytes.Equal(joined, payload) {
				t.Error("segments do not add up to the payload")
			}
			// Captured short (the ring's limit): later segments keep
			// their headers and the part of the payload that is there.
			segs, ok = splitAll(&s, pkt[:len(pkt)-4000], len(pkt), gso{typ: tc.typ, size: 1448})
			if !ok || len(segs) != 4 || len(segs[0].payload) != 1000 || len(segs[1].payload) != 0 || segs[3].orig != len(pkt)-len(payload)+5000-3*1448 {
				t.Errorf("short capture: %v %d segments", ok, len(segs))
			}
		})
	}
}

func TestSplitRefuses(t *testing.T) {
	var s segmenter
	tcp := superPacket(false, true, make([]byte, 3000))
	udp6 := superPacket(true, false, make([]byte, 3000))
	for _, tc := range []struct {
		name string
		pkt  []byte
		g    gso
	}{
		{"no gso", tcp, gso{}},
		{"UFO", udp6, gso{typ: gsoUDP, size: 1000}},
		{"tcp as udp", tcp, gso{typ: gsoUDPL4, size: 1000}},
		{"udp as tcp", udp6, gso{typ: gsoTCPv6, size: 1000}},
		{"tcp4 as tcp6", tcp, gso{typ: gsoTCPv6, size: 1000}},
		{"one segment", tcp, gso{typ: gsoTCPv4, size: 3000}},
		{"headers cut", tcp[:40], gso{typ: gsoTCPv4, size: 1000}},
		{"not IP", append([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x06}, make([]byte, 100)...), gso{typ: gsoTCPv4, size: 10}},
	} {
		if _, ok := splitAll(&s, tc.pkt, len(tc.pkt), tc.g); ok {
			t.Errorf("%s: split", tc.name)
		}
	}
}

func TestSplitAllocs(t *testing.T) {
	var s segmenter
	pkt := superPacket(false, true, make([]byte, 60000))
	var n int
	emit := func(head, payload []byte, orig int) { n++ }
	if a := testing.AllocsPerRun(100, func() { s.split(pkt, len(pkt), true, gso{typ: gsoTCPv4, size: 1448}, emit) }); a != 0 {
		t.Errorf("%.1f allocations per super-packet", a)
	}
}

// FuzzSplit: any bytes and GSO header: no panic, and when split, the
// segments' payloads are the packet's payload in order, each at most the
// segment size, and their lengths add up.
func FuzzSplit(f *testing.F) {
	f.Add(superPacket(false, true, make([]byte, 3000)), uint8(gsoTCPv4), uint16(1448), uint16(0))
	f.Add(superPacket(true, false, make([]byte, 3000)), uint8(gsoUDPL4), uint16(1000), uint16(500))
	f.Fuzz(func(t *testing.T, pkt []byte, typ uint8, size, extra uint16) {
		var s segmenter
		orig := len(pkt) + int(extra)
		var joined []byte
		total := 0
		ok := s.split(pkt, orig, true, gso{typ: typ, size: int(size)}, func(head, payload []byte, o int) {
			if len(payload) > int(size) || o-len(head) > int(size) || len(payload) > o-len(head) {
				t.Fatalf("segment: %d header, %d payload bytes, length %d; size %d", len(head), len(payload), o, size)
			}
			joined = append(joined, payload...)
			total += o - len(head)
		})
		if !ok {
			return
		}
		l, _ := parse(pkt, true)
		if !bytes.Equal(joined, pkt[l.payload:]) || total != orig-l.payload {
			t.Fatalf("segments carry %d bytes (total %d), packet %d (total %d)", len(joined), total, len(pkt)-l.payload, orig-l.payload)
		}
	})
}
