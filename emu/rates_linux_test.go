package emu

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/vishvananda/netlink"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/internal/emutest"
)

// TestExplicitRateMakesLinkConstant: `emu up --scenario fairness --set
// link1.down.rate=20mbit` runs link1's downlink at a constant 20 Mbit/s
// (the kernel's HTB class says so, also after the default trace would have
// changed it), while link2 keeps replaying the trace.
func TestExplicitRateMakesLinkConstant(t *testing.T) {
	emutest.RequireRoot(t)
	cfg, err := config.Resolve("fairness", settings(t, "link1.down.rate=20mbit"))
	if err != nil {
		t.Fatal(err)
	}
	em, err := network.Start(context.Background(), cfg, network.Options{ID: emutest.RunID(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer em.Close()
	var l1, l2 *link.Dir
	for _, d := range em.Dirs() {
		switch d.Name {
		case "link1.down":
			l1 = d
		case "link2.down":
			l2 = d
		}
	}
	if l1.Player != nil || l2.Player == nil {
		t.Fatalf("link1.down player %v, link2.down player %v: want none and the trace", l1.Player, l2.Player)
	}
	gws, err := em.Net.Node("gws")
	if err != nil {
		t.Fatal(err)
	}
	// Bytes/s of Ethernet frames: the downlink carries the DC client's
	// PDUs in UDP, which the link does not charge (link.EncapUDP).
	wire := 20e6 * (link.IPMTU + link.EtherHeader + link.EncapUDP) / link.IPMTU / 8
	deadline := time.Now().Add(2500 * time.Millisecond) // StaticA changes every second
	checked := 0
	for time.Now().Before(deadline) {
		l, err := gws.Link("l1")
		if err != nil {
			t.Fatal(err)
		}
		classes, err := gws.Handle.ClassList(l, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range classes {
			if h, ok := c.(*netlink.HtbClass); ok && c.Attrs().Handle == netlink.MakeHandle(1, 1) {
				if math.Abs(float64(h.Rate)-wire) > 0.01*wire {
					t.Fatalf("link1.down class rate %d B/s, want %.0f (20 Mbit/s at the IP layer, in UDP)", h.Rate, wire)
				}
				checked++
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	if checked < 5 {
		t.Fatalf("read link1.down's HTB class %d times, want at least 5", checked)
	}
	if got := cfg.RateSources(); got != "link1: down 20mbit, up 20mbit; link2: down trace StaticA, up 20mbit" {
		t.Errorf("rate sources %q", got)
	}
}
