package emu

import (
	"fmt"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// TestPDCPDuplicationUnderLoad: with every PDU duplicated, a 15 Mbit/s UDP
// stream over link1 at 20 Mbit/s and link2 at 10 Mbit/s arrives complete
// over link1 while link2's queue stays full and drops the copies it cannot
// carry; the copies link2 carries arrive and are discarded. The copies
// waiting in link2's queue must not hold up the proxy, which sends them
// in a UDP send of their own: the kernel queues them on link2 and the send
// returns. The figures that say the proxy kept up are
// TestFidelityPDCPDuplicationUnderLoad's.
func TestPDCPDuplicationUnderLoad(t *testing.T) {
	emutest.SkipUnderRace(t)
	emutest.Exclusive(t)
	// A short queue on link2, so that 2 s overflow it.
	r := duplicationUnderLoad(t, 2*time.Second, "link2.down.queue=100p")
	r.f.waitArrived(t, r.sent, 5*time.Second)
	waitDrained(t, r.em)
	c, link2Drops := r.counters(t)
	if c.DuplicatesDiscarded < r.sent/10 {
		t.Errorf("%d of %d duplicates arrived, want about 2/3 (≥ a tenth)", c.DuplicatesDiscarded, r.sent)
	}
	if link2Drops == 0 {
		t.Error("link2's queue dropped no copy: the duplicates did not meet its rate limiter")
	}
	if c.TxLink2 < r.sent || c.TxLink1 < r.sent {
		t.Errorf("PDUs sent on link1 %d, link2 %d, want every one of %d on both", c.TxLink1, c.TxLink2, r.sent)
	}
}

// TestFidelityPDCPDuplicationUnderLoad: under
// TestPDCPDuplicationUnderLoad's load for 6 s the proxies keep up: the
// transmitting gateway's TUN drops nothing before the proxy reads it, the
// receiving gateway's socket drops no PDU, and link2 delivers about 2/3
// of the copies.
func TestFidelityPDCPDuplicationUnderLoad(t *testing.T) {
	emutest.SkipUnderRace(t)
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	// The witness sees the stalls that hold the proxy's thread without
	// the hypervisor's steal counting them.
	h.Witness(t)
	r := duplicationUnderLoad(t, 6*time.Second)
	waitArrivedWatched(t, h, r.f, r.sent, 5*time.Second)
	waitWatched(t, h, 5*time.Second, drained(r.em))
	c, _ := r.counters(t)
	// link2 carries 10 of the 15 Mbit/s of copies; fewer arrive only
	// where a proxy late to read its socket lost them.
	var missed []string
	if c.DuplicatesDiscarded < r.sent/2 {
		missed = append(missed, fmt.Sprintf("%d of %d duplicates arrived, want about 2/3 (≥ %d)", c.DuplicatesDiscarded, r.sent, r.sent/2))
	}
	// The TUN's queue and the socket overflow only behind a proxy held
	// from reading them.
	if b := c.Batch; b == nil {
		missed = append(missed, "no batch path counters")
	} else if b.TUNDropped != 0 || b.SocketDrops != 0 {
		missed = append(missed, fmt.Sprintf("the transmitting TUN dropped %d packets and the receiving socket %d PDUs, want 0", b.TUNDropped, b.SocketDrops))
	}
	h.Check(t, missed)
}

// dupLoad is TestPDCPDuplicationUnderLoad's emulation and flow, once sent.
type dupLoad struct {
	em   *network.Emulation
	f    *udpFlow
	sent uint64
}

// duplicationUnderLoad sends TestPDCPDuplicationUnderLoad's stream for d,
// with more settings.
func duplicationUnderLoad(t *testing.T, d time.Duration, more ...string) dupLoad {
	t.Helper()
	em := startEmulation(t, append([]string{"link.jitter=0", "link.delay=5ms", "link1.down.rate=20mbit", "link2.down.rate=10mbit",
		"dc.scheduler=duplicate"}, more...)...)
	srv, cli := mustNode(t, em.Net, "srv"), mustNode(t, em.Net, "cli")
	f := startUDPFlow(t, srv, cli, topo.ClientAddr(topo.PathDC), 1200)
	return dupLoad{em, f, f.pace(15e6, d)}
}

// counters returns the downlink's PDCP counters and what link2's downlink
// queue dropped, once all arrived and drained, and logs them.
func (r dupLoad) counters(t *testing.T) (results.PDCPCounters, uint64) {
	t.Helper()
	c := r.em.PDCP()["down"]
	var link2Drops uint64
	for _, d := range r.em.Dirs() {
		if d.Name == "link2.down" {
			st, err := d.Shaper.Stats()
			if err != nil {
				t.Fatal(err)
			}
			link2Drops = st.Drops
		}
	}
	t.Logf("sent %d, all arrived; %d duplicates discarded by the receiver, %d copies dropped by link2's full queue; %s",
		r.sent, c.DuplicatesDiscarded, link2Drops, pdcpState(r.em))
	return c, link2Drops
}

// TestPDCPUplinkDuplication: with a split uplink the device-side proxy in
// gwc duplicates too; the copies reach the receive proxy in gws. No copy
// is lost on the path: one missing is a late proxy's, so at least half
// must arrive (the counters are published every 50 ms).
func TestPDCPUplinkDuplication(t *testing.T) {
	em := startEmulation(t, "link.jitter=0", "link.delay=5ms", "dc.uplink=split", "dc.scheduler=duplicate")
	srv, cli := mustNode(t, em.Net, "srv"), mustNode(t, em.Net, "cli")
	f := startUDPFlow(t, cli, srv, topo.ServerAddr, 1000)
	sent := f.pace(4e6, time.Second)
	f.completeInOrder(t, sent)
	emutest.WaitFor(t, 2*time.Second, func() error {
		if c := em.PDCP()["up"]; c.DuplicatesDiscarded < sent/2 {
			return errorf("%d of %d uplink duplicates arrived", c.DuplicatesDiscarded, sent)
		}
		return nil
	})
}
