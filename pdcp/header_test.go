package pdcp

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// TestAssignAndHeader: the batch path's numbering and header, a PDU being
// the header followed by the SDU: SNs run on and wrap, the header reads
// back, and the counters count the sizes given.
func TestAssignAndHeader(t *testing.T) {
	for _, bits := range []int{SNBits12, SNBits18} {
		s, err := NewSender(bits, mustScheduler(t, SchedulerConfig{Batch: 3}))
		if err != nil {
			t.Fatal(err)
		}
		hl := HeaderLen(bits)
		pdu := make([]byte, hl+4)
		copy(pdu[hl:], "data")
		n := 1<<bits + 10
		for count := range n {
			sn, to := s.Assign(len(pdu), 0)
			if want := uint32(count % (1 << bits)); sn != want {
				t.Fatalf("%d bits: COUNT %d got SN %d, want %d", bits, count, sn, want)
			}
			if to != Link0 && to != Link1 {
				t.Fatalf("%d bits: COUNT %d on %v", bits, count, to)
			}
			PutHeader(pdu, sn, bits)
			got, sdu, err := ParseHeader(pdu, bits)
			if err != nil || got != sn || string(sdu) != "data" {
				t.Fatalf("%d bits: SN %d read back as %d %q %v", bits, sn, got, sdu, err)
			}
		}
		if c := s.Counters; c.PDUs != uint64(n) || c.Link[0]+c.Link[1] != uint64(n) || c.Bytes[0]+c.Bytes[1] != uint64(n*len(pdu)) {
			t.Errorf("%d bits: counters %+v", bits, c)
		}
	}
}

// wantHeader is the data PDU header for sn, written out field by field.
func wantHeader(sn uint32, bits int) []byte {
	if bits == SNBits12 {
		return []byte{0x80 | byte(sn>>8), byte(sn)}
	}
	return []byte{0x80 | byte(sn>>16), byte(sn >> 8), byte(sn)}
}

// TestHeaderCarriesPacket: for every test packet, SN length and edge SN,
// the header written into the headroom in front of the packet is the
// 3GPP layout byte for byte, the packet behind it is untouched, and
// ParseHeader gives back the SN and the packet in place, not a copy.
func TestHeaderCarriesPacket(t *testing.T) {
	for _, tp := range testPackets() {
		for _, bits := range []int{SNBits12, SNBits18} {
			for _, sn := range []uint32{0, 1, 0xABC, 1<<bits - 1, 0x2ABCD & (1<<bits - 1)} {
				t.Run(fmt.Sprintf("%s/%d/%d", tp.name, bits, sn), func(t *testing.T) {
					hl := HeaderLen(bits)
					pdu := make([]byte, hl+len(tp.pkt))
					copy(pdu[hl:], tp.pkt)
					PutHeader(pdu, sn, bits)
					if want := wantHeader(sn, bits); !bytes.Equal(pdu[:hl], want) {
						t.Fatalf("header %x, want %x", pdu[:hl], want)
					}
					if !bytes.Equal(pdu[hl:], tp.pkt) {
						t.Fatal("PutHeader wrote past the header")
					}
					got, sdu, err := ParseHeader(pdu, bits)
					if err != nil || got != sn {
						t.Fatalf("read back SN %d, %v; want %d", got, err, sn)
					}
					if !bytes.Equal(sdu, tp.pkt) || &sdu[0] != &pdu[hl] {
						t.Error("ParseHeader did not return the packet in place at pdu[HeaderLen:]")
					}
				})
			}
		}
	}
}

// TestPutHeaderSendsLowBits: only the SN's low bits are written; the
// D/C bit stays 1 and the reserved bits 0 whatever sn holds above them.
func TestPutHeaderSendsLowBits(t *testing.T) {
	for _, bits := range []int{SNBits12, SNBits18} {
		h := make([]byte, HeaderLen(bits))
		PutHeader(h, 0xFFFFFFFF, bits)
		if want := wantHeader(1<<bits-1, bits); !bytes.Equal(h, want) {
			t.Errorf("%d bits: header %x, want %x", bits, h, want)
		}
	}
}

// TestParseHeaderIgnoresReservedBits: TS 38.323 has the receiver ignore
// the R bits.
func TestParseHeaderIgnoresReservedBits(t *testing.T) {
	pkt := ipv6Packet(protoUDP, false, []byte("r"))
	for _, bits := range []int{SNBits12, SNBits18} {
		hl := HeaderLen(bits)
		pdu := append(make([]byte, hl), pkt...)
		PutHeader(pdu, 3, bits)
		pdu[0] |= 0x70 // R bits of both formats
		if bits == SNBits18 {
			pdu[0] |= 0x7C
		}
		sn, sdu, err := ParseHeader(pdu, bits)
		if err != nil || sn != 3 || !bytes.Equal(sdu, pkt) {
			t.Errorf("%d-bit: sn %d err %v, equal %v", bits, sn, err, bytes.Equal(sdu, pkt))
		}
	}
}

func TestParseHeaderRefuses(t *testing.T) {
	if _, _, err := ParseHeader([]byte{0x80, 1}, SNBits18); !errors.Is(err, ErrShort) {
		t.Errorf("2 bytes at 18 bits: %v, want ErrShort", err)
	}
	if _, _, err := ParseHeader([]byte{0x80}, SNBits12); !errors.Is(err, ErrShort) {
		t.Errorf("1 byte at 12 bits: %v, want ErrShort", err)
	}
	if _, _, err := ParseHeader(nil, SNBits12); !errors.Is(err, ErrShort) {
		t.Errorf("empty: %v, want ErrShort", err)
	}
	if _, _, err := ParseHeader([]byte{0x00, 1, 2}, SNBits12); !errors.Is(err, ErrNoSN) {
		t.Errorf("control PDU: %v, want ErrNoSN", err)
	}
	// A bare IP packet (a tunnelled one) has D/C = 0 in either version.
	for _, tp := range testPackets() {
		for _, bits := range []int{SNBits12, SNBits18} {
			if _, _, err := ParseHeader(tp.pkt, bits); !errors.Is(err, ErrNoSN) {
				t.Errorf("%s as a %d-bit PDU: %v, want ErrNoSN", tp.name, bits, err)
			}
		}
	}
}

// FuzzParseHeader: any datagram parses or is refused without a panic or a
// change to it; one that parses gives its SN (within the SN space) and
// the bytes after the header in place, and a header written for that SN
// is the datagram's own, reserved bits aside.
func FuzzParseHeader(f *testing.F) {
	f.Add([]byte{0x80, 0x01, 0x02, 0x45}, true)
	f.Add([]byte{0x8f, 0xff}, false)
	f.Add([]byte{0x00}, false)
	f.Add([]byte{0xff, 0xff, 0xff}, true)
	for _, tp := range testPackets() {
		f.Add(tp.pkt, false) // tunnelled: refused
		f.Add(append(wantHeader(0xABC, SNBits12), tp.pkt...), false)
		f.Add(append(wantHeader(0x3FFFF, SNBits18), tp.pkt...), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, wide bool) {
		bits := SNBits12
		if wide {
			bits = SNBits18
		}
		hl := HeaderLen(bits)
		orig := bytes.Clone(b)
		sn, sdu, err := ParseHeader(b, bits)
		if !bytes.Equal(b, orig) {
			t.Fatal("ParseHeader modified the datagram")
		}
		if err != nil {
			if len(b) >= hl && b[0]&0x80 != 0 {
				t.Fatalf("a data PDU of %d bytes refused: %v", len(b), err)
			}
			return
		}
		if len(sdu) != len(b)-hl || sn >= 1<<bits || (len(sdu) > 0 && &sdu[0] != &b[hl]) {
			t.Fatalf("SN %d, SDU %d of %d bytes", sn, len(sdu), len(b))
		}
		h := make([]byte, hl)
		PutHeader(h, sn, bits)
		want := bytes.Clone(b[:hl])
		want[0] &= 0x8F // 12-bit: R bits 0x70
		if bits == SNBits18 {
			want[0] &= 0x83 // 18-bit: R bits 0x7C
		}
		if !bytes.Equal(h, want) {
			t.Fatalf("header %x written for SN %d, datagram's %x", h, sn, b[:hl])
		}
		if again, _, err := ParseHeader(h, bits); err != nil || again != sn {
			t.Fatalf("SN %d written and read as %d, %v", sn, again, err)
		}
	})
}
