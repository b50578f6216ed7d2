package tcpinfo

import (
	"encoding/binary"
	"testing"
	"time"
)

// synthetic builds a tcp_info buffer with distinct values in every field
// Info decodes.
func synthetic(n int) []byte {
	b := make([]byte, n)
	put32 := func(f Field, v uint32) { binary.NativeEndian.PutUint32(b[layout[f].off:], v) }
	put64 := func(f Field, v uint64) { binary.NativeEndian.PutUint64(b[layout[f].off:], v) }
	b[0], b[1], b[2], b[7] = StateEstablished, CARecovery, 3, 1
	put32(RTO, 204000)
	put32(SndMSS, 1448)
	put32(Unacked, 100)
	put32(Sacked, 10)
	put32(Lost, 5)
	put32(Retrans, 2)
	put32(SRTT, 21500)
	put32(RTTVar, 1250)
	put32(SndSsthresh, 70)
	put32(SndCwnd, 120)
	put32(TotalRetrans, 42)
	put64(PacingRate, 5_000_000)
	put64(BytesAcked, 1<<33)
	put32(NotsentBytes, 65536)
	put32(MinRTT, 20100)
	put64(DeliveryRate, 2_500_000)
	put64(BytesSent, 1<<34)
	put64(BytesRetrans, 123456)
	return b
}

func TestDecodeFullLayout(t *testing.T) {
	i := Decode(synthetic(280))
	want := Info{Len: 280, State: StateEstablished, CAState: CARecovery, Retransmits: 3, AppLimited: true,
		RTO: 204 * time.Millisecond, SndMSS: 1448, Unacked: 100, Sacked: 10, Lost: 5, Retrans: 2,
		SRTT: 21500 * time.Microsecond, RTTVar: 1250 * time.Microsecond, MinRTT: 20100 * time.Microsecond,
		SndCwnd: 120, SndSsthresh: 70, TotalRetrans: 42, PacingRate: 5_000_000, DeliveryRate: 2_500_000,
		BytesAcked: 1 << 33, BytesSent: 1 << 34, BytesRetrans: 123456, NotsentBytes: 65536}
	if i != want {
		t.Fatalf("decoded\n%+v\nwant\n%+v", i, want)
	}
	if n, ok := i.InFlight(); !ok || n != 100-10-5+2 {
		t.Errorf("in flight %d %v, want 87", n, ok)
	}
	if n, _ := i.InFlightBytes(); n != 87*1448 {
		t.Errorf("in flight bytes %d", n)
	}
	if n, _ := i.CwndBytes(); n != 120*1448 {
		t.Errorf("cwnd bytes %d", n)
	}
}

// TestDecodeShortKernel: an old kernel's shorter struct leaves the fields
// past its end unknown, not zero-but-known.
func TestDecodeShortKernel(t *testing.T) {
	// 104 bytes: Linux 3.x, up to tcpi_total_retrans.
	i := Decode(synthetic(280)[:104])
	if !i.Has(TotalRetrans) || i.TotalRetrans != 42 || i.SRTT != 21500*time.Microsecond {
		t.Errorf("fields inside the returned length lost: %+v", i)
	}
	for _, f := range []Field{PacingRate, BytesAcked, MinRTT, DeliveryRate, BytesSent, BytesRetrans, NotsentBytes} {
		if i.Has(f) {
			t.Errorf("field %d reported known past length 104", f)
		}
	}
	if i.BytesAcked != 0 || i.DeliveryRate != 0 {
		t.Errorf("unknown fields not zero: %+v", i)
	}
	if _, ok := Decode(nil).CwndBytes(); ok {
		t.Error("cwnd known from an empty buffer")
	}
}

// TestInFlightNeverWraps: inconsistent counters (seen transiently while the
// kernel updates them) must not underflow to 4 billion segments.
func TestInFlightNeverWraps(t *testing.T) {
	i := Info{Len: Size, Unacked: 3, Sacked: 5, Lost: 1, Retrans: 1}
	if n, _ := i.InFlight(); n != 1 {
		t.Errorf("in flight %d, want 1", n)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(synthetic(280))
	f.Add(synthetic(280)[:104])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		i := Decode(b)
		if i.Len != len(b) {
			t.Fatalf("len %d of %d bytes", i.Len, len(b))
		}
		for f := Field(0); f < numFields; f++ {
			if i.Has(f) != (layout[f].off+layout[f].size <= len(b)) {
				t.Fatalf("Has(%d) wrong for %d bytes", f, len(b))
			}
		}
		i.InFlightBytes()
		i.CwndBytes()
	})
}

func TestDecodeAllocatesNothing(t *testing.T) {
	b := synthetic(280)
	if n := testing.AllocsPerRun(100, func() { _ = Decode(b) }); n != 0 {
		t.Errorf("Decode: %v allocations", n)
	}
}

func BenchmarkDecode(b *testing.B) {
	buf := synthetic(280)
	b.ReportAllocs()
	for b.Loop() {
		_ = Decode(buf)
	}
}
