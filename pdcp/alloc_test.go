package pdcp

import (
	"testing"
	"time"
)

// The per-packet path must not allocate (docs/design.md, PDCP proxies).

func TestSendAllocs(t *testing.T) {
	pkt := ipv4Packet(protoUDP, 0, make([]byte, 1200))
	buf := make([]byte, 0, 2048)
	for _, kind := range SchedulerKinds() {
		sched := mustScheduler(t, SchedulerConfig{Kind: kind})
		sched.SetLinkState(0, LinkState{RateBps: 20e6, Delay: 10 * ms})
		sched.SetLinkState(1, LinkState{RateBps: 10e6, Delay: 30 * ms})
		s, _ := NewSender(SNBits18, sched)
		var now time.Duration
		if a := testing.AllocsPerRun(1000, func() {
			now += 100 * time.Microsecond
			if _, _, err := s.Send(buf, pkt, now); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%s: Send allocates %.1f times per packet", kind, a)
		}
	}
}

func TestDecapAllocs(t *testing.T) {
	pdu, _ := Encap(nil, ipv6Packet(protoUDP, false, make([]byte, 1200)), 9, SNBits12)
	buf := make([]byte, len(pdu))
	if a := testing.AllocsPerRun(1000, func() {
		copy(buf, pdu)
		if _, _, err := Decap(buf, SNBits12); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("Decap allocates %.1f times per packet", a)
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
