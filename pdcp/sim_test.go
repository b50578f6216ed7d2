package pdcp

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// A deterministic two-link simulation of the DC path, in virtual time:
// packets leave the server at a constant rate, the Sender numbers them and
// picks the link(s) and the PDCP header goes in front of each (PutHeader),
// each link serialises the PDU at its rate (FIFO, unbounded queue), adds
// its delay and drops with its loss rate, and the arrivals, their SNs read
// by ParseHeader, drive the Receiver in arrival order with Expire called
// at every deadline, as emu/dcproxy's loop does.

type simLink struct {
	rateBps float64
	delay   time.Duration
	loss    float64
}

type simConfig struct {
	sched    SchedulerConfig
	bits     int
	tReor    time.Duration
	rateBps  float64 // source rate
	pktBytes int
	packets  int
	links    [2]simLink
	seed     uint64
}

type simArrival struct {
	at    time.Duration
	sn    uint32
	count uint64 // true COUNT, carried in the handle
	link  int
}

type simResult struct {
	sent      int
	delivered []uint64 // true COUNTs in delivery order
	rx        RxCounters
	tx        TxCounters
	buffered  int
}

func simulate(t testing.TB, cfg simConfig) simResult {
	t.Helper()
	sched, err := NewScheduler(cfg.sched)
	if err != nil {
		t.Fatal(err)
	}
	snd, err := NewSender(cfg.bits, sched)
	if err != nil {
		t.Fatal(err)
	}
	rcv, err := NewReceiver(cfg.bits, cfg.tReor)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(cfg.seed, 42))
	pkt := ipv4Packet(protoUDP, 0, make([]byte, cfg.pktBytes-28))
	hl := HeaderLen(cfg.bits)
	pdu := append(make([]byte, hl), pkt...) // the header in the headroom
	gap := time.Duration(float64(cfg.pktBytes*8) / cfg.rateBps * float64(time.Second))
	var free [2]time.Duration // when each link's serialiser is idle
	arrivals := make([]simArrival, 0, cfg.packets*2)
	for i := range cfg.packets {
		now := time.Duration(i) * gap
		count := snd.Next()
		sent, to := snd.Assign(len(pdu), now)
		PutHeader(pdu, sent, cfg.bits)
		sn, _, err := ParseHeader(pdu, cfg.bits) // what the receive side reads
		if err != nil || sn != sent {
			t.Fatalf("COUNT %d: SN %d read back as %d, %v", count, sent, sn, err)
		}
		for l := range 2 {
			if !to.Has(l) {
				continue
			}
			lk := cfg.links[l]
			start := max(now, free[l])
			free[l] = start + time.Duration(float64(len(pdu)*8)/lk.rateBps*float64(time.Second))
			if rng.Float64() < lk.loss {
				continue
			}
			arrivals = append(arrivals, simArrival{at: free[l] + lk.delay, sn: sn, count: count, link: l})
		}
	}
	slices.SortStableFunc(arrivals, func(a, b simArrival) int { return cmp.Compare(a.at, b.at) })

	var res simResult
	deliver := func(h Handle, _ Reason) {
		res.delivered = append(res.delivered, uint64(h.Aux)<<32|uint64(h.ID))
	}
	expireUntil := func(t time.Duration) {
		for {
			d, on := rcv.Deadline()
			if !on || d > t {
				return
			}
			rcv.Expire(d, deliver)
		}
	}
	for _, a := range arrivals {
		expireUntil(a.at)
		rcv.Receive(a.sn, Handle{ID: uint32(a.count), Aux: uint32(a.count >> 32)}, a.at, deliver)
	}
	expireUntil(1 << 62)
	res.sent = cfg.packets
	res.rx, res.tx, res.buffered = rcv.Counters, snd.Counters, rcv.Buffered()
	return res
}

// inOrderAndComplete checks that every COUNT was delivered once, in order.
func inOrderAndComplete(t *testing.T, res simResult) {
	t.Helper()
	if len(res.delivered) != res.sent {
		t.Errorf("delivered %d of %d packets", len(res.delivered), res.sent)
	}
	for i, c := range res.delivered {
		if c != uint64(i) {
			t.Fatalf("delivery %d is COUNT %d: not complete and in order", i, c)
		}
	}
	c := res.rx
	if c.OldDiscarded != 0 || c.GivenUp != 0 || c.DuplicatesDiscarded != 0 || res.buffered != 0 {
		t.Errorf("receiver counters show loss or discards: %+v", c)
	}
}

// TestDCBatchRepairsReordering is the first "must show" in virtual
// time: 30 Mbit/s of UDP over two 20 Mbit/s links with one-way delays of
// 10 ms and 30 ms, batch 100, 1:1, arrives complete and in order, and the
// receiver's counters show the reordering it repaired.
func TestDCBatchRepairsReordering(t *testing.T) {
	res := simulate(t, simConfig{
		sched: SchedulerConfig{Kind: KindBatch, Batch: 100, Split: Split{1, 1}},
		bits:  SNBits12, tReor: 200 * ms, rateBps: 30e6, pktBytes: 1280, packets: 30000,
		links: [2]simLink{{rateBps: 20e6, delay: 10 * ms}, {rateBps: 20e6, delay: 30 * ms}},
	})
	inOrderAndComplete(t, res)
	c := res.rx
	if c.Reordered == 0 || c.Held < uint64(res.sent)/4 || c.MaxBuffered < 50 {
		t.Errorf("expected repaired reordering in the counters: %+v", c)
	}
	if res.tx.Link[0] != 15000 || res.tx.Link[1] != 15000 {
		t.Errorf("per-link PDUs %v, want 15000 each", res.tx.Link)
	}
	// Holding adds delay: SDUs of link 0 wait for link 1's 20 ms lag.
	if p99 := c.HoldTime.Quantile(0.99); p99 < 20*ms || p99 > 200*ms {
		t.Errorf("p99 hold %v, want between the delay skew and t-Reordering", p99)
	}
	t.Logf("reordered %d, held %d, max buffer %d, hold %v", c.Reordered, c.Held, c.MaxBuffered, c.HoldTime)
}

// TestDuplicationLoss is the second "must show": with duplication and 5%
// random loss on each link, end-to-end loss is near p² = 0.25%, not p.
func TestDuplicationLoss(t *testing.T) {
	const n = 200000
	res := simulate(t, simConfig{
		sched: SchedulerConfig{Kind: KindDuplicate},
		bits:  SNBits12, tReor: 200 * ms, rateBps: 10e6, pktBytes: 1200, packets: n, seed: 7,
		links: [2]simLink{{rateBps: 20e6, delay: 10 * ms, loss: 0.05}, {rateBps: 20e6, delay: 12 * ms, loss: 0.05}},
	})
	lost := n - len(res.delivered)
	frac := float64(lost) / n
	if frac < 0.0015 || frac > 0.0035 { // 0.25% ± 4.5 σ
		t.Errorf("end-to-end loss %.4f%% (%d of %d), want near 0.25%%", frac*100, lost, n)
	}
	if !slices.IsSorted(res.delivered) {
		t.Error("deliveries out of order")
	}
	c := res.rx
	if c.GivenUp != uint64(lost) {
		t.Errorf("GivenUp %d, want the %d lost COUNTs", c.GivenUp, lost)
	}
	// Both copies arrive for 0.95² of the PDUs: the second one is discarded.
	if d := float64(c.DuplicatesDiscarded) / n; d < 0.89 || d > 0.915 {
		t.Errorf("duplicates discarded %.3f per PDU, want ≈ 0.9025", d)
	}
	t.Logf("lost %d of %d (%.3f%%), duplicates discarded %d", lost, n, frac*100, c.DuplicatesDiscarded)
}

// TestWrapAround runs long enough to wrap the SN many times while link 1
// lags by 20 ms: nothing is lost or reordered at the output.
func TestWrapAround(t *testing.T) {
	cases := []struct {
		name    string
		bits    int
		rateBps float64
		packets int
		wraps   int
	}{
		{"12-bit 30 Mbit/s", SNBits12, 30e6, 200000, 48},
		{"18-bit 1 Gbit/s", SNBits18, 1e9, 800000, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := simulate(t, simConfig{
				sched: SchedulerConfig{Kind: KindBatch, Batch: 100, Split: Split{1, 1}},
				bits:  tc.bits, tReor: 200 * ms, rateBps: tc.rateBps, pktBytes: 1500, packets: tc.packets,
				links: [2]simLink{{rateBps: tc.rateBps, delay: 10 * ms}, {rateBps: tc.rateBps, delay: 30 * ms}},
			})
			if w := tc.packets >> tc.bits; w < tc.wraps {
				t.Fatalf("only %d wraps", w)
			}
			inOrderAndComplete(t, res)
			if res.rx.Reordered == 0 || res.rx.MaxBuffered >= Window(tc.bits) {
				t.Errorf("reordering %d, max buffer %d (window %d)", res.rx.Reordered, res.rx.MaxBuffered, Window(tc.bits))
			}
			t.Logf("%d wraps, reordered %d, max buffer %d", tc.packets>>tc.bits, res.rx.Reordered, res.rx.MaxBuffered)
		})
	}
}

// TestWindowOverrun shows the failure WindowWarning warns about: at
// 80 Mbit/s with 12-bit SNs a lost PDU makes the receiver wait while more
// than W PDUs arrive, and out-of-window discards follow; 18-bit SNs carry
// the same traffic with only the lost PDU missing.
func TestWindowOverrun(t *testing.T) {
	for _, bits := range []int{SNBits12, SNBits18} {
		res := simulate(t, simConfig{
			sched: SchedulerConfig{Kind: KindBatch, Batch: 100},
			bits:  bits, tReor: 200 * ms, rateBps: 160e6, pktBytes: 1500, packets: 20000, seed: 3,
			links: [2]simLink{{rateBps: 100e6, delay: 10 * ms, loss: 0.0005}, {rateBps: 100e6, delay: 10 * ms, loss: 0.0005}},
		})
		lostOnLinks := uint64(res.sent) - (res.rx.Received)
		_, warn := WindowWarning(160e6, 200*ms, bits, 1500)
		if bits == SNBits12 {
			if res.rx.OldDiscarded == 0 || !warn {
				t.Errorf("12-bit: out-of-window discards %d, warning %v; want both", res.rx.OldDiscarded, warn)
			}
		} else if res.rx.OldDiscarded != 0 || warn || res.rx.GivenUp != lostOnLinks {
			t.Errorf("18-bit: out-of-window %d, warning %v, given up %d (lost on links %d)", res.rx.OldDiscarded, warn, res.rx.GivenUp, lostOnLinks)
		}
		t.Logf("%d-bit: lost on links %d, given up %d, discarded old %d", bits, lostOnLinks, res.rx.GivenUp, res.rx.OldDiscarded)
	}
}
