package pdcp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"testing"
)

// l4Valid verifies the UDP/TCP checksum of an unencapsulated packet built
// by the helpers (IPv6 with at most the 8-byte hop-by-hop header).
func l4Valid(t *testing.T, pkt []byte) {
	t.Helper()
	var src, dst netip.Addr
	var proto byte
	var seg, pseudo []byte
	if pkt[0]>>4 == 4 {
		hl := int(pkt[0]&0x0F) * 4
		src, dst = netip.AddrFrom4([4]byte(pkt[12:16])), netip.AddrFrom4([4]byte(pkt[16:20]))
		proto, seg = pkt[9], pkt[hl:]
		pseudo = append(append(src.AsSlice(), dst.AsSlice()...), 0, proto, byte(len(seg)>>8), byte(len(seg)))
	} else {
		src, dst = netip.AddrFrom16([16]byte(pkt[8:24])), netip.AddrFrom16([16]byte(pkt[24:40]))
		proto, seg = pkt[6], pkt[40:]
		if proto == 0 {
			proto, seg = seg[0], seg[8:]
		}
		pseudo = binary.BigEndian.AppendUint32(append(src.AsSlice(), dst.AsSlice()...), uint32(len(seg)))
		pseudo = append(pseudo, 0, 0, 0, proto)
	}
	if c := csum(pseudo, seg); c != 0 {
		t.Fatalf("L4 (proto %d) checksum does not verify: residue %#04x", proto, c)
	}
}

func TestEncapDecapRoundTrip(t *testing.T) {
	for _, tp := range testPackets() {
		for _, bits := range []int{SNBits12, SNBits18} {
			for _, sn := range []uint32{0, 1, 0xABC, 1<<bits - 1, 0x2ABCD & (1<<bits - 1)} {
				t.Run(fmt.Sprintf("%s/%d/%d", tp.name, bits, sn), func(t *testing.T) {
					l4Valid(t, tp.pkt)
					orig := bytes.Clone(tp.pkt)
					shim := ShimLen(bits)
					pdu, err := Encap(make([]byte, 0, 2048), tp.pkt, sn, bits)
					if err != nil {
						t.Fatalf("Encap: %v", err)
					}
					if !bytes.Equal(tp.pkt, orig) {
						t.Fatal("Encap modified its input")
					}
					checkPDU(t, orig, pdu, sn, bits)
					gotSN, pkt, err := Decap(pdu, bits)
					if err != nil {
						t.Fatalf("Decap: %v", err)
					}
					if gotSN != sn {
						t.Errorf("Decap SN = %d, want %d", gotSN, sn)
					}
					if !bytes.Equal(pkt, orig) {
						t.Fatalf("Decap(Encap(p)) differs from p:\n got %x\nwant %x", pkt[:60], orig[:60])
					}
					if &pkt[0] != &pdu[shim] {
						t.Error("Decap did not return the packet in place at pdu[shim:]")
					}
					l4Valid(t, pkt)
				})
			}
		}
	}
}

// checkPDU checks the PDU field by field against the original packet.
func checkPDU(t *testing.T, orig, pdu []byte, sn uint32, bits int) {
	t.Helper()
	shim := ShimLen(bits)
	if len(pdu) != len(orig)+shim {
		t.Fatalf("PDU length %d, want %d", len(pdu), len(orig)+shim)
	}
	var hl, protoOff, lenOff, lenBase int
	if orig[0]>>4 == 4 {
		hl, protoOff, lenOff = int(orig[0]&0x0F)*4, 9, 2
		if c := csum(pdu[:hl]); c != 0 {
			t.Errorf("IPv4 header checksum does not verify after Encap (residue %#04x)", c)
		}
	} else {
		hl, protoOff, lenOff, lenBase = 40, 6, 4, 40
	}
	if pdu[protoOff] != 253 {
		t.Errorf("protocol %d, want 253", pdu[protoOff])
	}
	if got := int(binary.BigEndian.Uint16(pdu[lenOff:])) + lenBase; got != len(pdu) {
		t.Errorf("IP length field says %d bytes, PDU has %d", got, len(pdu))
	}
	var wantHdr []byte
	if bits == 12 {
		wantHdr = []byte{0x80 | byte(sn>>8), byte(sn)}
	} else {
		wantHdr = []byte{0x80 | byte(sn>>16), byte(sn >> 8), byte(sn)}
	}
	wantShim := append(wantHdr, orig[protoOff])
	if !bytes.Equal(pdu[hl:hl+shim], wantShim) {
		t.Errorf("shim %x, want %x", pdu[hl:hl+shim], wantShim)
	}
	if !bytes.Equal(pdu[hl+shim:], orig[hl:]) {
		t.Error("payload after the shim differs from the original payload")
	}
	// Every header byte except protocol, length and IPv4 checksum is kept.
	for i := 0; i < hl; i++ {
		skip := i == protoOff || i == lenOff || i == lenOff+1 || (protoOff == 9 && (i == 10 || i == 11))
		if !skip && pdu[i] != orig[i] {
			t.Errorf("header byte %d changed: %#02x → %#02x", i, orig[i], pdu[i])
		}
	}
}

func TestEncapInPlace(t *testing.T) {
	for _, tp := range testPackets() {
		orig := bytes.Clone(tp.pkt)
		buf := make([]byte, len(orig), len(orig)+8)
		copy(buf, orig)
		pdu, err := Encap(buf[:0], buf, 0x123, SNBits12)
		if err != nil {
			t.Fatalf("%s: Encap in place: %v", tp.name, err)
		}
		if &pdu[0] != &buf[0] {
			t.Errorf("%s: in-place Encap reallocated", tp.name)
		}
		checkPDU(t, orig, pdu, 0x123, SNBits12)
	}
}

func TestEncapGrowsSmallDst(t *testing.T) {
	pkt := testPackets()[0].pkt
	pdu, err := Encap(nil, pkt, 7, SNBits18)
	if err != nil {
		t.Fatal(err)
	}
	checkPDU(t, pkt, pdu, 7, SNBits18)
}

// TestEncapChecksumEdge covers IPv4 checksums next to the values the
// incremental update treats specially (0x0000, 0xFFFE): the round trip must
// restore them exactly. The id field is searched for a header with the
// wanted checksum.
func TestEncapChecksumEdge(t *testing.T) {
	base := ipv4Packet(protoUDP, 0, []byte("x"))
	for _, want := range []uint16{0x0000, 0x0001, 0xFFFE} {
		p := bytes.Clone(base)
		found := false
		for id := 0; id < 1<<16 && !found; id++ {
			binary.BigEndian.PutUint16(p[4:], uint16(id))
			p[10], p[11] = 0, 0
			c := csum(p[:20])
			binary.BigEndian.PutUint16(p[10:], c)
			found = c == want
		}
		if !found {
			t.Fatalf("no id gives checksum %#04x", want)
		}
		for _, bits := range []int{12, 18} {
			pdu, err := Encap(nil, p, 1, bits)
			if err != nil {
				t.Fatalf("checksum %#04x: %v", want, err)
			}
			checkPDU(t, p, pdu, 1, bits)
			_, back, err := Decap(pdu, bits)
			if err != nil || !bytes.Equal(back, p) {
				t.Fatalf("checksum %#04x: round trip failed (%v)", want, err)
			}
		}
	}
}

// TestEncapRefusesChecksumFFFF: 0xFFFF is a valid but non-canonical IPv4
// checksum when the other header words sum to 0xFFFF; the incremental update
// cannot restore it, so Encap refuses it rather than change a byte.
func TestEncapRefusesChecksumFFFF(t *testing.T) {
	p := ipv4Packet(protoUDP, 0, []byte("x"))
	for id := 0; id < 1<<16; id++ {
		binary.BigEndian.PutUint16(p[4:], uint16(id))
		p[10], p[11] = 0, 0
		if csum(p[:20]) == 0 {
			p[10], p[11] = 0xFF, 0xFF
			if c := csum(p[:20]); c != 0 {
				t.Fatalf("0xFFFF does not verify here (residue %#04x)", c)
			}
			if _, err := Encap(nil, p, 1, 12); !errors.Is(err, ErrChecksum) {
				t.Fatalf("Encap with checksum 0xFFFF: %v, want ErrChecksum", err)
			}
			return
		}
	}
	t.Fatal("no id gives a header whose canonical checksum is 0")
}

func TestEncapErrors(t *testing.T) {
	v4 := ipv4Packet(protoUDP, 0, []byte("hello"))
	v6 := ipv6Packet(protoUDP, false, []byte("hello"))
	mod := func(p []byte, f func(p []byte) []byte) []byte { return f(bytes.Clone(p)) }
	refix := func(p []byte) []byte { // recompute the IPv4 header checksum
		p[10], p[11] = 0, 0
		binary.BigEndian.PutUint16(p[10:], csum(p[:int(p[0]&0xF)*4]))
		return p
	}
	big := ipv4Packet(protoUDP, 0, make([]byte, 65532-28)) // 65532 bytes: room for 3, not 4
	cases := []struct {
		name string
		pkt  []byte
		bits int
		want error
	}{
		{"empty", nil, 12, ErrNotIP},
		{"version 5", mod(v4, func(p []byte) []byte { p[0] = 0x55; return p }), 12, ErrNotIP},
		{"ethernet-ish", []byte{0x00, 0x11, 0x22}, 12, ErrNotIP},
		{"ipv4 19 bytes", v4[:19], 12, ErrShort},
		{"ipv4 truncated payload", v4[:len(v4)-1], 12, ErrShort},
		{"ipv4 IHL 4", mod(v4, func(p []byte) []byte { p[0] = 0x44; return refix(p) }), 12, ErrLength},
		{"ipv4 IHL beyond packet", mod(v4[:24], func(p []byte) []byte {
			p[0] = 0x4F
			binary.BigEndian.PutUint16(p[2:], 60)
			return p
		}), 12, ErrShort},
		{"ipv4 trailing bytes", append(bytes.Clone(v4), 0, 0), 12, ErrLength},
		{"ipv4 total length below header", mod(v4, func(p []byte) []byte {
			binary.BigEndian.PutUint16(p[2:], 12)
			return refix(p)
		}), 12, ErrLength},
		{"ipv4 bad checksum", mod(v4, func(p []byte) []byte { p[11] ^= 1; return p }), 12, ErrChecksum},
		{"ipv4 already encapsulated", mod(v4, func(p []byte) []byte { p[9] = 253; return refix(p) }), 12, ErrEncapsulated},
		{"ipv4 too big", big, 18, ErrTooBig},
		{"ipv6 39 bytes", v6[:39], 12, ErrShort},
		{"ipv6 truncated", v6[:len(v6)-2], 12, ErrShort},
		{"ipv6 trailing bytes", append(bytes.Clone(v6), 1), 12, ErrLength},
		{"ipv6 jumbogram", mod(v6, func(p []byte) []byte { p[4], p[5] = 0, 0; return p }), 12, ErrLength},
		{"ipv6 already encapsulated", mod(v6, func(p []byte) []byte { p[6] = 253; return p }), 12, ErrEncapsulated},
		{"bad SN length", v4, 16, ErrSNBits},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			orig := bytes.Clone(tc.pkt)
			_, err := Encap(make([]byte, 0, 70000), tc.pkt, 5, tc.bits)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Encap error %v, want %v", err, tc.want)
			}
			if !bytes.Equal(tc.pkt, orig) {
				t.Error("Encap modified a packet it refused")
			}
		})
	}
	// The size limit is exact: the 3-byte 12-bit shim still fits.
	if pdu, err := Encap(nil, big, 5, 12); err != nil || len(pdu) != 65535 {
		t.Errorf("packet of 65532 bytes with a 3-byte shim: %d bytes, %v", len(pdu), err)
	}
}

func TestDecapErrors(t *testing.T) {
	v4 := ipv4Packet(protoTCP, 0, []byte("payload"))
	v6 := ipv6Packet(protoUDP, false, []byte("payload"))
	pdu4, _ := Encap(nil, v4, 0x555, 12)
	pdu6, _ := Encap(nil, v6, 0x555, 12)
	mod := func(p []byte, f func(p []byte)) []byte { p = bytes.Clone(p); f(p); return p }
	cases := []struct {
		name    string
		pdu     []byte
		want    error
		foreign bool
	}{
		{"empty", nil, ErrNotIP, true},
		{"not IP", []byte{0x12, 0x34}, ErrNotIP, true},
		{"plain ipv4", v4, ErrNotPDCP, true},
		{"plain ipv6", v6, ErrNotPDCP, true},
		{"ipv4 header only", pdu4[:19], ErrShort, false},
		{"ipv4 PDU truncated", pdu4[:len(pdu4)-1], ErrShort, false},
		{"ipv4 shim cut", mod(pdu4[:21], func(p []byte) { binary.BigEndian.PutUint16(p[2:], 21) }), ErrShort, false},
		{"ipv4 IHL 3", mod(pdu4, func(p []byte) { p[0] = 0x43 }), ErrLength, false},
		{"ipv4 trailing", append(bytes.Clone(pdu4), 9), ErrLength, false},
		{"control PDU", mod(pdu4, func(p []byte) { p[20] &^= 0x80 }), ErrNoSN, false},
		{"ipv6 short", pdu6[:30], ErrShort, false},
		{"ipv6 shim cut", mod(pdu6[:42], func(p []byte) { binary.BigEndian.PutUint16(p[4:], 2) }), ErrShort, false},
		{"ipv6 control PDU", mod(pdu6, func(p []byte) { p[40] = 0x05 }), ErrNoSN, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			orig := bytes.Clone(tc.pdu)
			_, _, err := Decap(tc.pdu, 12)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Decap error %v, want %v", err, tc.want)
			}
			if IsForeign(err) != tc.foreign {
				t.Errorf("IsForeign(%v) = %v, want %v", err, !tc.foreign, tc.foreign)
			}
			if !bytes.Equal(tc.pdu, orig) {
				t.Error("Decap modified a packet it refused")
			}
		})
	}
	if _, _, err := Decap(pdu4, 13); !errors.Is(err, ErrSNBits) {
		t.Errorf("Decap with 13-bit SNs: %v, want ErrSNBits", err)
	}
}

// TestDecapIgnoresReservedBits: TS 38.323 has the receiver ignore R bits.
func TestDecapIgnoresReservedBits(t *testing.T) {
	pkt := ipv6Packet(protoUDP, false, []byte("r"))
	for _, bits := range []int{12, 18} {
		pdu, _ := Encap(nil, pkt, 3, bits)
		pdu[40] |= 0x70 // R bits of both formats
		if bits == 18 {
			pdu[40] |= 0x7C
		}
		sn, back, err := Decap(pdu, bits)
		if err != nil || sn != 3 || !bytes.Equal(back, pkt) {
			t.Errorf("%d-bit: sn %d err %v, equal %v", bits, sn, err, bytes.Equal(back, pkt))
		}
	}
}
