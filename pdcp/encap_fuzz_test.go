package pdcp

import (
	"bytes"
	"testing"
)

// FuzzEncapDecap checks on arbitrary bytes that neither function panics,
// that Decap(Encap(p)) gives back p and its SN for every p Encap accepts,
// and that Encap(Decap(q)) gives back q (reserved header bits aside) for
// every q Decap accepts, whenever Encap accepts the restored packet.
func FuzzEncapDecap(f *testing.F) {
	for _, tp := range testPackets() {
		f.Add(tp.pkt, uint32(0xABC), false)
		pdu, _ := Encap(nil, tp.pkt, 0x3FFFF, 18)
		f.Add(pdu, uint32(1), true)
		pdu, _ = Encap(nil, tp.pkt, 0xFFF, 12)
		f.Add(pdu, uint32(2), false)
	}
	f.Add([]byte{0x45}, uint32(0), false)
	f.Add([]byte{0x60, 0, 0, 0, 0, 0, 253}, uint32(0), true)
	f.Fuzz(func(t *testing.T, data []byte, sn uint32, nr bool) {
		bits := SNBits12
		if nr {
			bits = SNBits18
		}
		sn &= 1<<bits - 1
		shim := ShimLen(bits)

		// Encap → Decap.
		in := bytes.Clone(data)
		pdu, err := Encap(make([]byte, 0, len(data)+shim), in, sn, bits)
		if !bytes.Equal(in, data) {
			t.Fatal("Encap modified its input")
		}
		if err == nil {
			if len(pdu) != len(data)+shim {
				t.Fatalf("PDU length %d, want %d", len(pdu), len(data)+shim)
			}
			if data[0]>>4 == 4 && onesSum(pdu[:int(pdu[0]&0x0F)*4]) != 0xFFFF {
				t.Fatal("IPv4 header checksum invalid after Encap")
			}
			gotSN, back, err := Decap(pdu, bits)
			if err != nil {
				t.Fatalf("Decap of an Encap result: %v", err)
			}
			if gotSN != sn || !bytes.Equal(back, data) {
				t.Fatalf("round trip: SN %d (want %d), equal %v", gotSN, sn, bytes.Equal(back, data))
			}
		}

		// Decap → Encap.
		q := bytes.Clone(data)
		gotSN, pkt, err := Decap(q, bits)
		if err != nil {
			if !bytes.Equal(q, data) {
				t.Fatal("Decap modified a packet it refused")
			}
			return
		}
		if len(pkt) != len(data)-shim {
			t.Fatalf("Decap returned %d bytes from %d", len(pkt), len(data))
		}
		again, err := Encap(nil, pkt, gotSN, bits)
		if err != nil {
			return // e.g. the restored header has a bad checksum
		}
		want := bytes.Clone(data)
		hl := 40
		if data[0]>>4 == 4 {
			hl = int(data[0]&0x0F) * 4
		}
		want[hl] = data[hl] & 0x8F // 12-bit: R bits 0x70
		if bits == SNBits18 {
			want[hl] = data[hl] & 0x83 // 18-bit: R bits 0x7C
		}
		if !bytes.Equal(again, want) {
			t.Fatalf("Encap(Decap(q)) differs from q:\n got %x\nwant %x", again, want)
		}
	})
}
