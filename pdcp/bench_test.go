package pdcp

import (
	"testing"
	"time"
)

func BenchmarkEncap(b *testing.B) {
	for _, tp := range testPackets()[:5] {
		b.Run(tp.name, func(b *testing.B) {
			buf := make([]byte, 0, 2048)
			b.ReportAllocs()
			b.SetBytes(int64(len(tp.pkt)))
			for i := range b.N {
				if _, err := Encap(buf, tp.pkt, uint32(i), SNBits18); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecap(b *testing.B) {
	for _, tp := range testPackets()[:5] {
		b.Run(tp.name, func(b *testing.B) {
			pdu, _ := Encap(nil, tp.pkt, 77, SNBits18)
			buf := append([]byte(nil), pdu...)
			b.ReportAllocs()
			b.SetBytes(int64(len(pdu)))
			for range b.N {
				copy(buf[:min(64, len(pdu))], pdu) // Decap moves only the IP header
				if _, _, err := Decap(buf, SNBits18); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPick(b *testing.B) {
	for _, kind := range SchedulerKinds() {
		b.Run(kind, func(b *testing.B) {
			s := mustScheduler(b, SchedulerConfig{Kind: kind})
			s.SetLinkState(0, LinkState{RateBps: 20e6, Delay: 10 * time.Millisecond})
			s.SetLinkState(1, LinkState{RateBps: 20e6, Delay: 30 * time.Millisecond})
			b.ReportAllocs()
			var n1 int
			for i := range b.N {
				if s.Pick(uint64(i), 1500, time.Duration(i)*400) == Link1 {
					n1++
				}
			}
		})
	}
}

// BenchmarkSend is the transmit proxy's pure work per packet: COUNT,
// Encap of a 1228-byte UDP/IPv4 packet, Pick.
func BenchmarkSend(b *testing.B) {
	s, _ := NewSender(SNBits18, mustScheduler(b, SchedulerConfig{}))
	pkt := ipv4Packet(protoUDP, 0, make([]byte, 1200))
	buf := make([]byte, 0, 2048)
	b.ReportAllocs()
	for i := range b.N {
		if _, _, err := s.Send(buf, pkt, time.Duration(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReceiveInOrder(b *testing.B) {
	for _, bits := range []int{SNBits12, SNBits18} {
		b.Run(map[int]string{12: "12bit", 18: "18bit"}[bits], func(b *testing.B) {
			r := newTestReceiver(b, bits)
			var n int
			deliver := func(Handle, Reason) { n++ }
			b.ReportAllocs()
			for i := range b.N {
				r.Receive(SN(uint64(i), bits), Handle{ID: uint32(i)}, time.Duration(i)*1000, deliver)
			}
			if n != b.N {
				b.Fatalf("delivered %d of %d", n, b.N)
			}
		})
	}
}

// BenchmarkReceiveBatchReordering: batch 100, 1:1, link 1 delayed by one
// batch, so every block of 200 COUNTs arrives as 0–49, 100–149, 50–99,
// 150–199: half the PDUs are held and released by a filled hole.
func BenchmarkReceiveBatchReordering(b *testing.B) {
	for _, bits := range []int{SNBits12, SNBits18} {
		b.Run(map[int]string{12: "12bit", 18: "18bit"}[bits], func(b *testing.B) {
			r := newTestReceiver(b, bits)
			var n int
			deliver := func(Handle, Reason) { n++ }
			var order [200]uint64
			for i := range 200 {
				block, j := i/50, uint64(i%50)
				order[i] = [4]uint64{0, 100, 50, 150}[block] + j
			}
			b.ReportAllocs()
			for i := range b.N {
				c := uint64(i/200)*200 + order[i%200]
				r.Receive(SN(c, bits), Handle{ID: uint32(c)}, time.Duration(i)*1000, deliver)
			}
			if b.N >= 200 && r.Counters.Held < uint64(b.N)/5 || r.Counters.DeliveredOnExpiry != 0 {
				b.Fatalf("unexpected counters %+v", r.Counters)
			}
		})
	}
}
