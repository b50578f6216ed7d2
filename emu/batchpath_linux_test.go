package emu

import (
	"fmt"
	"math"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/vishvananda/netlink"

	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/linkstats"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// TestDCLinksChargeThePDU: a saturating UDP stream of full-size packets to
// the DC client, all of it put on link1 (20 Mbit/s), arrives at about
// 20 Mbit/s of inner IP packets (one link: over two,
// each hole a shaper's drop leaves makes the receiver discard what the
// other link brings late). The links charge what the air would carry (the
// PDU), not the batch path's UDP encapsulation, which is backhaul. On the
// batch path the kernel's HTB classes say so exactly: the downlinks, which
// carry PDUs in UDP, run faster by the 28 bytes of IP and UDP headers, the
// uplinks (not split) by the Ethernet header only. The rate to 2 % is
// TestFidelityDCLinksChargeThePDU's.
func TestDCLinksChargeThePDU(t *testing.T) {
	emutest.SkipUnderRace(t)
	emutest.Exclusive(t)
	got, want := dcLinkRate(t, 2*time.Second)
	if got < want/5 || got > 1.5*want {
		t.Errorf("delivered %.3f Mbit/s, want about %.3f (between a fifth and 1.5 times)", got/1e6, want/1e6)
	}
}

// TestFidelityDCLinksChargeThePDU: TestDCLinksChargeThePDU's stream
// arrives at 20 Mbit/s of inner IP packets less the PDCP header's share,
// within 2 %.
func TestFidelityDCLinksChargeThePDU(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	got, want := dcLinkRate(t, 3*time.Second)
	if errPct := (got - want) / want * 100; math.Abs(errPct) > 2 {
		h.Errorf(t, "delivered %.3f Mbit/s, want %.3f ± 2%%", got/1e6, want/1e6)
	}
}

// dcLinkRate runs TestDCLinksChargeThePDU's stream for d, checks the
// links' HTB class rates, and returns the rate of inner
// IP packets delivered after the first second and the rate the PDU's
// header leaves of link1's 20 Mbit/s.
func dcLinkRate(t *testing.T, d time.Duration) (got, want float64) {
	t.Helper()
	const rate = 20e6
	// A short t-Reordering: the shaper drops what does not fit, and
	// the receiver moves past each hole in 2 ms rather than holding
	// the stream for 200.
	em := startEmulation(t, "link.jitter=0", "link.delay=2ms", "link.rate=20mbit", "link.queue=100p",
		"dc.t_reordering=2ms", "dc.split=1:0")
	srv, cli := mustNode(t, em.Net, "srv"), mustNode(t, em.Net, "cli")
	checkClassRate(t, mustNode(t, em.Net, "gws"), "l1", linkstats.WireRate(rate, linkstats.FrameHeader+link.EncapUDP))
	checkClassRate(t, mustNode(t, em.Net, "gws"), "l2", linkstats.WireRate(rate, linkstats.FrameHeader+link.EncapUDP))
	checkClassRate(t, mustNode(t, em.Net, "gwc"), "l1", linkstats.WireRate(rate, linkstats.FrameHeader))
	f := startUDPFlow(t, srv, cli, topo.ClientAddr(topo.PathDC), 1472)
	start := time.Now()
	f.pace(rate*1.3, d)
	got = f.ipRate(f.snapshot(), start.Add(time.Second), start.Add(d))
	// The PDU is the packet and a 2-byte header (12-bit SN).
	want = rate * 1500 / (1500 + 2)
	t.Logf("delivered %.3f Mbit/s of inner IP packets, want %.3f (%+.2f%%); %s", got/1e6, want/1e6, (got-want)/want*100, pathDrops(em))
	return got, want
}

// TestOtherClientsShareTheLinksExactly: beside a DC client, a client on
// link1 and one on link2 each get their link's rate, downlink and (split)
// uplink. The batch path runs the links faster by its
// UDP encapsulation, so a packet crossing bare would get 1.8 % more than
// the rate: there the other clients' packets cross in the same UDP,
// unnumbered, and are counted. The rates to 1 % are
// TestFidelityOtherClientsShareTheLinksExactly's.
func TestOtherClientsShareTheLinksExactly(t *testing.T) {
	emutest.SkipUnderRace(t)
	emutest.Exclusive(t)
	const rate = 20e6
	rates, em := otherClientsRates(t, 2*time.Second)
	for name, got := range rates {
		if got < rate/5 || got > 1.5*rate {
			t.Errorf("%s: delivered %.3f Mbit/s, want about %.3f (between a fifth and 1.5 times); %s", name, got/1e6, rate/1e6, pathDrops(em))
		}
	}
	for dir, c := range em.PDCP() {
		if b := c.Batch; b == nil || b.TunnelSent == 0 || b.TunnelDelivered == 0 {
			t.Errorf("%s: the batch path tunnelled nothing (%+v)", dir, b)
		}
	}
}

// TestFidelityOtherClientsShareTheLinksExactly: the other clients of
// TestOtherClientsShareTheLinksExactly get their link's rate within 1 %.
func TestFidelityOtherClientsShareTheLinksExactly(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	const rate = 20e6
	rates, em := otherClientsRates(t, 3*time.Second)
	for name, got := range rates {
		if errPct := (got - rate) / rate * 100; math.Abs(errPct) > 1 {
			h.Errorf(t, "%s: delivered %.3f Mbit/s, want %.3f ± 1%%; %s", name, got/1e6, rate/1e6, pathDrops(em))
		}
	}
}

// otherClientsRates runs TestOtherClientsShareTheLinksExactly's three
// saturating streams for d and returns the IP rate each
// delivered after the first second, by name.
func otherClientsRates(t *testing.T, d time.Duration) (map[string]float64, *network.Emulation) {
	t.Helper()
	const rate = 20e6
	em := startEmulation(t, "link.jitter=0", "link.delay=2ms", "link.rate=20mbit", "link.queue=100p",
		"dc.uplink=split", "flows.count=3", "flows.1.path=link1", "flows.2.path=link2")
	srv, cli1, cli2 := mustNode(t, em.Net, "srv"), mustNode(t, em.Net, "cli1"), mustNode(t, em.Net, "cli2")
	flows := []struct {
		name string
		f    *udpFlow
	}{
		{"link1 down", startUDPFlow(t, srv, cli1, topo.ClientAddr(topo.PathLink1), 1472)},
		{"link2 down", startUDPFlow(t, srv, cli2, topo.ClientAddr(topo.PathLink2), 1472)},
		{"link1 up", startUDPFlow(t, cli1, srv, topo.ServerAddr, 1472)},
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, f := range flows {
		wg.Go(func() { f.f.pace(rate*1.3, d) })
	}
	wg.Wait()
	rates := map[string]float64{}
	for _, f := range flows {
		got := f.f.ipRate(f.f.snapshot(), start.Add(time.Second), start.Add(d))
		t.Logf("%s delivered %.3f Mbit/s of IP packets, want %.3f (%+.2f%%)", f.name, got/1e6, rate/1e6, (got-rate)/rate*100)
		rates[f.name] = got
	}
	return rates, em
}

// checkClassRate fails t unless the HTB class of iface in node runs at
// want bit/s (to the kernel's byte-per-second rounding).
func checkClassRate(t *testing.T, n *topo.NodeNS, iface string, want float64) {
	t.Helper()
	l, err := n.Link(iface)
	if err != nil {
		t.Fatal(err)
	}
	classes, err := n.Handle.ClassList(l, netlink.MakeHandle(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range classes {
		if htb, ok := c.(*netlink.HtbClass); ok && htb.Handle == netlink.MakeHandle(1, 1) {
			got := float64(htb.Rate) * 8
			if math.Abs(got-want) > 16 {
				t.Errorf("%s %s: HTB class rate %.0f bit/s, want %.0f", n.Name, iface, got, want)
			}
			return
		}
	}
	t.Errorf("%s %s: no HTB class 1:1", n.Name, iface)
}

// TestBatchPathCarriesTCP: an iperf3 download (CUBIC) to the DC client
// over two 100 Mbit/s links with 5 and 15 ms one-way delays goes through
// the batch path in batches: each UDP send carries several PDUs and each
// TUN write several SDUs, both links carry PDUs and the receiver repaired
// their reordering. What it lost outside PDCP and the goodput are
// TestFidelityBatchPathCarriesTCP's.
func TestBatchPathCarriesTCP(t *testing.T) {
	emutest.SkipUnderRace(t)
	emutest.Exclusive(t)
	mbps, c := batchPathTCP(t)
	b := c.Batch
	pdus := c.TxLink1 + c.TxLink2
	if c.TxLink1 == 0 || c.TxLink2 == 0 || c.Reordered == 0 {
		t.Errorf("the split did not use both links, or nothing was reordered: %+v", c)
	}
	// TCP hands the TUN super-packets: a send of one PDU at a time, or
	// a write of one SDU, would be the NFQUEUE path's cost again.
	if float64(pdus) < 2*float64(b.UDPSends) {
		t.Errorf("%d PDUs in %d UDP sends: fewer than 2 a send", pdus, b.UDPSends)
	}
	if float64(c.Delivered) < 2*float64(b.TUNWrites) {
		t.Errorf("%d SDUs in %d TUN writes: fewer than 2 a write", c.Delivered, b.TUNWrites)
	}
	// Three seconds of traffic: at least one whole second's wait in gwc's
	// socket was estimated.
	if b.SocketWaitMs["n"] < 1 {
		t.Errorf("gwc's socket: %v ms waited: no second estimated", b.SocketWaitMs)
	}
	if mbps < 20 {
		t.Errorf("iperf3 got %.1f Mbit/s over 2 × 100 Mbit/s, want well over 20", mbps)
	}
}

// TestFidelityBatchPathCarriesTCP: TestBatchPathCarriesTCP's download
// gets at least one link's worth, and the batch path loses nothing
// outside PDCP (socket drops, refused writes): only a busy host's would.
func TestFidelityBatchPathCarriesTCP(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	mbps, c := batchPathTCP(t)
	b := c.Batch
	var missed []string
	if b.SocketDrops != 0 || b.TUNRefused != 0 {
		missed = append(missed, fmt.Sprintf("the batch path lost %d datagrams in gwc's socket and %d TUN writes, want 0", b.SocketDrops, b.TUNRefused))
	}
	if mbps < 100 {
		missed = append(missed, fmt.Sprintf("iperf3 got %.1f Mbit/s over 2 × 100 Mbit/s, want at least 100", mbps))
	}
	h.Check(t, missed)
}

// batchPathTCP runs TestBatchPathCarriesTCP's download for 3 s and
// returns iperf3's goodput and the downlink's PDCP counters, which have
// the batch path's.
func batchPathTCP(t *testing.T) (float64, results.PDCPCounters) {
	t.Helper()
	if _, err := exec.LookPath("iperf3"); err != nil {
		t.Skip("needs iperf3 (apt-get install iperf3)")
	}
	em := startEmulation(t, "link.jitter=0", "link1.delay=5ms", "link2.delay=15ms", "link.rate=100mbit",
		"tcp.buffer_max=16MB", "dc.sn_bits=18")
	mbps, err := iperf3(em, 3*time.Second, "-C", "cubic")
	if err != nil {
		t.Fatal(err)
	}
	c := em.PDCP()["down"]
	b := c.Batch
	if b == nil {
		t.Fatalf("no batch path counters: %+v", c)
	}
	pdus := c.TxLink1 + c.TxLink2
	t.Logf("iperf3: %.1f Mbit/s; PDCP: %d PDUs on link1, %d on link2, %d reordered, %d given up; %d UDP sends (%.1f PDUs each), %d TUN writes (%.1f SDUs each), %d refused, %d socket drops",
		mbps, c.TxLink1, c.TxLink2, c.Reordered, c.GivenUp, b.UDPSends, float64(pdus)/float64(max(b.UDPSends, 1)),
		b.TUNWrites, float64(c.Delivered)/float64(max(b.TUNWrites, 1)), b.TUNRefused, b.SocketDrops)
	t.Logf("gwc's socket: %v ms waited, at most %d bytes queued", b.SocketWaitMs, b.SocketQueuedMax)
	return mbps, c
}
