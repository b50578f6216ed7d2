package emu

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// TestFlowControlStopsACollapsedLeg: with dc.fc=ddds and the credit
// scheduler, link2's rate falls to 0 for 1.5 s (a trace of its own) under
// a 15 Mbit/s UDP stream. Its DU reports DBS 0 and the host's credit for
// it falls to 0 or below, and stays there while the rate is 0: no report
// can give credit back then, since its DBS is 0 and nothing leaves the
// held queue. Once the rate is back, so is the credit. The stream loses at
// most what link2 held when it stopped, its buffer (50 ms of 10 Mbit/s),
// which arrives after t-Reordering gave up on it; the rest crosses link1,
// in order. How fast the host learns of the collapse is a figure, logged,
// not asserted here.
func TestFlowControlStopsACollapsedLeg(t *testing.T) {
	emutest.SkipUnderRace(t)
	emutest.Exclusive(t)
	trace := filepath.Join(t.TempDir(), "collapse.csv")
	const out, back = time.Second, 2500 * time.Millisecond // the trace's
	if err := os.WriteFile(trace, []byte("time_s,down_mbps\n0,10\n1,0\n2.5,10\n30,10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	em := startEmulation(t, "link.jitter=0", "link.delay=5ms", "link1.rate=20mbit", "link2.trace="+trace,
		"dc.fc=ddds", "dc.scheduler=credit", "dc.sn_bits=18")
	srv, cli := mustNode(t, em.Net, "srv"), mustNode(t, em.Net, "cli")
	const size = 1200
	f := startUDPFlow(t, srv, cli, topo.ClientAddr(topo.PathDC), size)

	var link2 *link.Dir
	for _, d := range em.Dirs() {
		if d.Name == "link2.down" {
			link2 = d
		}
	}
	if link2 == nil {
		t.Fatal("no link2.down")
	}
	// Each sample reads link2's rate before its credit, so a sample with
	// the rate at 0 comes after the player stopped the link.
	type sample struct {
		at     time.Duration
		down   bool
		credit int
	}
	var (
		mu      sync.Mutex
		samples []sample
		wg      sync.WaitGroup
	)
	end := 3500 * time.Millisecond
	wg.Go(func() {
		for time.Since(em.Epoch) < end {
			down := link2.Shaper.Rate() == 0
			c := em.PDCPCredit()
			if len(c) > 0 && len(c[0]) == 2 {
				mu.Lock()
				samples = append(samples, sample{time.Since(em.Epoch), down, c[0][1]})
				mu.Unlock()
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	sent := f.pace(15e6, time.Until(em.Epoch.Add(back+500*time.Millisecond)))
	wg.Wait()

	// Once a report with DBS 0 has come, nothing gives link2 credit back
	// while its rate is 0: every report then says DBS 0, and nothing
	// leaves the held queue.
	stopped := -1
	for i, s := range samples {
		if s.down && s.credit <= 0 {
			stopped = i
			break
		}
	}
	if stopped < 0 {
		t.Fatalf("link2's credit never fell to 0 while its rate was 0 (%d samples)", len(samples))
	}
	resumed := false
	for _, s := range samples[stopped:] {
		if s.down && s.credit > 0 {
			t.Errorf("link2 had %d bytes of credit at %v, its rate 0 and its credit gone since %v", s.credit, s.at, samples[stopped].at)
		}
		if !s.down && s.at > back && s.credit > 0 {
			resumed = true
		}
	}
	if !resumed {
		t.Errorf("link2's credit did not come back within %v of its rate's time", end-back)
	}

	// What link2 held at the collapse arrives 1.5 s late: the receiver
	// gave up on it. Nothing else may be missing, or out of order.
	held := int(10e6/8*0.050) / (size + 28)
	emutest.WaitFor(t, 5*time.Second, func() error {
		if n := len(f.snapshot()); n+held+1 < int(sent) {
			return errorf("%d of %d datagrams arrived", n, sent)
		}
		return nil
	})
	time.Sleep(300 * time.Millisecond)
	as := f.snapshot()
	for i := 1; i < len(as); i++ {
		if as[i].seq <= as[i-1].seq {
			t.Errorf("datagram %d arrived after %d", as[i].seq, as[i-1].seq)
			break
		}
	}
	if missing := int(sent) - len(as); missing > held+1 {
		t.Errorf("%d of %d datagrams missing, more than link2's buffer (%d)", missing, sent, held)
	}
	c := em.PDCP()["down"]
	fc := c.FlowControl
	if fc == nil || len(fc.Legs) != 2 || fc.Legs[0].Reports == 0 || fc.Legs[1].Reports == 0 {
		t.Fatalf("flow control's account: %+v", fc)
	}
	t.Logf("%d sent, %d arrived; PDUs link1 %d, link2 %d; link2: %d reports (%d at once on DBS 0), credit-limited %.2f s; host held %d, dropped %d; credit fell to 0 %v after the collapse",
		sent, len(as), c.TxLink1, c.TxLink2, fc.Legs[1].Reports, fc.Legs[1].ReportsOnZero, fc.Legs[1].CreditLimitedS, fc.HostHeld, fc.HostDropped, samples[stopped].at-out)
}
