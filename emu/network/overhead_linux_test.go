package network

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/vishvananda/netlink"

	"github.com/dc-emu/emu/internal/emutest"
)

// idleRTT measures the median small-packet RTT of n pings over a bare
// veth pair and over an idle emulated path with no delay configured (rate
// limiters only, no delay line).
func idleRTT(t *testing.T, n int) (bare, emu time.Duration) {
	emutest.RequireRoot(t)
	bare = bareVethRTT(t, n)
	em := startEmulation(t, "link.delay=0", "link.jitter=0", "dc.enabled=false")
	rtts, lost, err := em.Ping(context.Background(), "cli", "srv", n, 2*time.Millisecond)
	if err != nil || len(rtts) == 0 {
		t.Fatalf("ping over the emulated path: %v, %d lost", err, lost)
	}
	emu = median(rtts)
	t.Logf("median small-packet RTT: bare veth pair %v, emulated path (3 veth hops each way, HTB) %v: +%v; %d lost",
		bare, emu, emu-bare, lost)
	return bare, emu
}

// TestIdleRTTOverhead: pings cross an idle emulated path with no delay
// configured, and it adds no delay line: less than 2 ms, ten times the
// 0.2 ms TestFidelityIdleRTTOverhead holds it to.
func TestIdleRTTOverhead(t *testing.T) {
	bare, emu := idleRTT(t, 50)
	if emu-bare > 2*time.Millisecond {
		t.Errorf("emulated path adds %v to the RTT of a bare veth pair, want at most 2 ms", emu-bare)
	}
}

// TestFidelityIdleRTTOverhead: small-packet RTT over an idle emulated
// path with no delay configured is within 0.2 ms of the RTT of a bare
// veth pair.
func TestFidelityIdleRTTOverhead(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	bare, emu := idleRTT(t, 300)
	if emu-bare > 200*time.Microsecond {
		h.Errorf(t, "emulated path adds %v to the RTT of a bare veth pair (tolerance 0.2 ms)", emu-bare)
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// bareVethRTT measures the median RTT of a UDP ping-pong over one veth pair
// between two private namespaces.
func bareVethRTT(t *testing.T, n int) time.Duration {
	a, b := emutest.NewNetNS(t), emutest.NewNetNS(t)
	v := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "va"}, PeerName: "vb", PeerNamespace: netlink.NsFd(b.NS)}
	if err := a.Handle.LinkAdd(v); err != nil {
		t.Fatal(err)
	}
	for _, side := range []struct {
		ns   *emutest.NetNS
		name string
		addr string
	}{{a, "va", "192.168.77.1/24"}, {b, "vb", "192.168.77.2/24"}} {
		l, err := side.ns.Handle.LinkByName(side.name)
		if err != nil {
			t.Fatal(err)
		}
		addr, _ := netlink.ParseAddr(side.addr)
		if err := side.ns.Handle.AddrAdd(l, addr); err != nil {
			t.Fatal(err)
		}
		if err := side.ns.Handle.LinkSetUp(l); err != nil {
			t.Fatal(err)
		}
	}
	target := netip.MustParseAddrPort("192.168.77.2:7")
	var echo, conn *net.UDPConn
	if err := b.Do(func() (err error) { echo, err = net.ListenUDP("udp4", net.UDPAddrFromAddrPort(target)); return }); err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go echoUDP(echo)
	if err := a.Do(func() (err error) { conn, err = net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(target)); return }); err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var rtts []time.Duration
	emutest.WaitFor(t, 5*time.Second, func() error { // carrier and neighbour resolution
		var err error
		rtts, _, err = pingLoop(context.Background(), conn, 1, 0)
		if err == nil && len(rtts) == 0 {
			err = errors.New("no answer yet")
		}
		return err
	})
	rtts, _, err := pingLoop(context.Background(), conn, n, 2*time.Millisecond)
	if err != nil || len(rtts) == 0 {
		t.Fatalf("bare veth ping: %v", err)
	}
	return median(rtts)
}
