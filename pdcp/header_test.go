package pdcp

import (
	"errors"
	"testing"
)

// TestAssignAndHeader: the batch path's numbering and header, a PDU being
// the header followed by the SDU: SNs run on and wrap as Send's do, the
// header reads back, and the counters count the sizes given.
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

func TestParseHeaderRefuses(t *testing.T) {
	if _, _, err := ParseHeader([]byte{0x80, 1}, SNBits18); !errors.Is(err, ErrShort) {
		t.Errorf("2 bytes at 18 bits: %v, want ErrShort", err)
	}
	if _, _, err := ParseHeader(nil, SNBits12); !errors.Is(err, ErrShort) {
		t.Errorf("empty: %v, want ErrShort", err)
	}
	if _, _, err := ParseHeader([]byte{0x00, 1, 2}, SNBits12); !errors.Is(err, ErrNoSN) {
		t.Errorf("control PDU: %v, want ErrNoSN", err)
	}
}

// FuzzParseHeader: any datagram parses or is refused without a panic, and
// a header written for the SN read back reads the same.
func FuzzParseHeader(f *testing.F) {
	f.Add([]byte{0x80, 0x01, 0x02, 0x45}, true)
	f.Add([]byte{0x8f, 0xff}, false)
	f.Add([]byte{0x00}, false)
	f.Fuzz(func(t *testing.T, b []byte, wide bool) {
		bits := SNBits12
		if wide {
			bits = SNBits18
		}
		sn, sdu, err := ParseHeader(b, bits)
		if err != nil {
			return
		}
		if len(sdu) != len(b)-HeaderLen(bits) || sn >= 1<<bits {
			t.Fatalf("SN %d, SDU %d of %d bytes", sn, len(sdu), len(b))
		}
		h := make([]byte, HeaderLen(bits))
		PutHeader(h, sn, bits)
		if again, _, err := ParseHeader(h, bits); err != nil || again != sn {
			t.Fatalf("SN %d written and read as %d, %v", sn, again, err)
		}
	})
}
