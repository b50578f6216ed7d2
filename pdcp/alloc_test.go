package pdcp

import (
	"testing"
	"time"
)

// The per-packet path must not allocate (docs/design.md, PDCP proxies).

// TestAssignAllocs: numbering a PDU, picking its link(s) and writing its
// header in front of the packet, with every scheduler.
func TestAssignAllocs(t *testing.T) {
	pkt := ipv4Packet(protoUDP, 0, make([]byte, 1200))
	hl := HeaderLen(SNBits18)
	pdu := make([]byte, hl+len(pkt), 2048)
	copy(pdu[hl:], pkt)
	for _, kind := range SchedulerKinds() {
		sched := mustScheduler(t, SchedulerConfig{Kind: kind})
		sched.SetLinkState(0, LinkState{RateBps: 20e6, Delay: 10 * ms})
		sched.SetLinkState(1, LinkState{RateBps: 10e6, Delay: 30 * ms})
		s, _ := NewSender(SNBits18, sched)
		var now time.Duration
		if a := testing.AllocsPerRun(1000, func() {
			now += 100 * time.Microsecond
			sn, _ := s.Assign(len(pdu), now)
			PutHeader(pdu, sn, SNBits18)
		}); a != 0 {
			t.Errorf("%s: Assign and PutHeader allocate %.1f times per packet", kind, a)
		}
	}
}

func TestParseHeaderAllocs(t *testing.T) {
	pkt := ipv6Packet(protoUDP, false, make([]byte, 1200))
	pdu := append(make([]byte, HeaderLen(SNBits12)), pkt...)
	PutHeader(pdu, 9, SNBits12)
	if a := testing.AllocsPerRun(1000, func() {
		if _, _, err := ParseHeader(pdu, SNBits12); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("ParseHeader allocates %.1f times per packet", a)
	}
}

func TestReceiveAllocs(t *testing.T) {
	for _, bits := range []int{SNBits12, SNBits18} {
		r := newTestReceiver(t, bits)
		var n int
		deliver := func(Handle, Reason) { n++ }
		var count uint64
		var now time.Duration
		// Per run: a batch of 8 arriving as 0 2 3 4 5 6 7 1 (held and
		// released), then 8 9 with 10 lost, then 11 and an expiry.
		order := []uint64{0, 2, 3, 4, 5, 6, 7, 1, 8, 9, 11}
		if a := testing.AllocsPerRun(500, func() {
			for _, o := range order {
				now += 50 * time.Microsecond
				r.Receive(SN(count+o, bits), Handle{ID: uint32(count + o)}, now, deliver)
			}
			now += time.Second
			r.Expire(now, deliver)
			count += 12
		}); a != 0 {
			t.Errorf("%d-bit: Receive/Expire allocate %.1f times per run", bits, a)
		}
		if r.Counters.DeliveredOnExpiry == 0 || r.Counters.Held == 0 || n == 0 {
			t.Errorf("%d-bit: the run did not exercise holding and expiry: %+v", bits, r.Counters)
		}
	}
}
