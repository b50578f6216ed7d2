package pdcp

import (
	"testing"
	"time"
)

// BenchmarkPutHeader writes the header into the headroom in front of
// each test packet, as the transmitting proxy does.
func BenchmarkPutHeader(b *testing.B) {
	for _, tp := range testPackets()[:5] {
		b.Run(tp.name, func(b *testing.B) {
			hl := HeaderLen(SNBits18)
			pdu := append(make([]byte, hl), tp.pkt...)
			b.ReportAllocs()
			b.SetBytes(int64(len(pdu)))
			for i := range b.N {
				PutHeader(pdu, uint32(i), SNBits18)
			}
		})
	}
}

// BenchmarkParseHeader reads the SN and SDU of each test packet's PDU, as
// the receiving proxy does.
func BenchmarkParseHeader(b *testing.B) {
	for _, tp := range testPackets()[:5] {
		b.Run(tp.name, func(b *testing.B) {
			pdu := append(make([]byte, HeaderLen(SNBits18)), tp.pkt...)
			PutHeader(pdu, 77, SNBits18)
			b.ReportAllocs()
			b.SetBytes(int64(len(pdu)))
			for range b.N {
				if _, _, err := ParseHeader(pdu, SNBits18); err != nil {
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

// BenchmarkAssign is the transmit proxy's pure work per packet: COUNT,
// Pick, and the header in front of a 1228-byte UDP/IPv4 packet.
func BenchmarkAssign(b *testing.B) {
	s, _ := NewSender(SNBits18, mustScheduler(b, SchedulerConfig{}))
	pkt := ipv4Packet(protoUDP, 0, make([]byte, 1200))
	pdu := append(make([]byte, HeaderLen(SNBits18)), pkt...)
	b.ReportAllocs()
	for i := range b.N {
		sn, _ := s.Assign(len(pdu), time.Duration(i))
		PutHeader(pdu, sn, SNBits18)
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
