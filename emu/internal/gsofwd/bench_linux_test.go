package gsofwd

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vishvananda/netlink"

	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/pdcp"
	"github.com/dc-emu/emu/topo"
)

// The rig is srv —veth— gws ═link1, link2═ gwc —veth— cli, as an emulation
// lays out a DC download's path (without its shapers and delay lines).
// The links carry the UDP encapsulation and have room for it (MTU 1600,
// as a backhaul with jumbo frames would), so the inner path keeps 1500.
const (
	srvAddr = "10.90.0.1"
	cliAddr = "10.90.9.1"
	fwdPort = 4500
	linkMTU = 1600
)

type rig struct {
	srv, gws, gwc, cli *emutest.NetNS
	// stop ends the forwarders or proxies and waits for them (nil when
	// routed); cleanup calls it too.
	stop func()
}

// newRig builds the namespaces and the plain routes; through is "routed"
// (gws and gwc forward over link1 as routers), "tun" (the inner subnets
// route into a TUN in gws and in gwc, each with a Forwarder over both
// links) or "pdcp" (the same with a Proxy, PDCP with 18-bit SNs, batch
// 100 split 1:1, t-Reordering 200 ms).
func newRig(tb testing.TB, through string) *rig {
	r, _ := newRigProxies(tb, through)
	return r
}

// newRigProxies is newRig that also returns the two proxies of "pdcp"
// (gws's, gwc's).
func newRigProxies(tb testing.TB, through string) (*rig, [2]*Proxy) {
	var proxies [2]*Proxy
	tb.Helper()
	r := &rig{srv: emutest.NewNetNS(tb), gws: emutest.NewNetNS(tb), gwc: emutest.NewNetNS(tb), cli: emutest.NewNetNS(tb)}
	must := func(what string, err error) {
		tb.Helper()
		if err != nil {
			tb.Fatalf("gsofwd rig: %s: %v", what, err)
		}
	}
	must("veth srv-gws", veth(r.srv, "s0", "10.90.0.1/24", r.gws, "gs0", "10.90.0.2/24", 1500))
	must("veth link1", veth(r.gws, "l1s", "10.91.1.1/24", r.gwc, "l1c", "10.91.1.2/24", linkMTU))
	must("veth link2", veth(r.gws, "l2s", "10.91.2.1/24", r.gwc, "l2c", "10.91.2.2/24", linkMTU))
	must("veth gwc-cli", veth(r.gwc, "gc0", "10.90.9.2/24", r.cli, "c0", "10.90.9.1/24", 1500))
	must("route srv", route(r.srv, "s0", "0.0.0.0/0", "10.90.0.2"))
	must("route cli", route(r.cli, "c0", "0.0.0.0/0", "10.90.9.2"))
	for _, n := range []*emutest.NetNS{r.gws, r.gwc} {
		must("forwarding", n.Do(func() error {
			return os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte("1"), 0o644)
		}))
	}
	switch through {
	case "routed":
		must("route gws", route(r.gws, "l1s", "10.90.9.0/24", "10.91.1.2"))
		must("route gwc", route(r.gwc, "l1c", "10.90.0.0/24", "10.91.1.1"))
	case "tun", "pdcp":
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 2)
		for i, g := range []struct {
			n     *emutest.NetNS
			name  string
			inner string
			peers []string
		}{
			{r.gws, "dcs", "10.90.9.0/24", []string{"10.91.1.2", "10.91.2.2"}},
			{r.gwc, "dcc", "10.90.0.0/24", []string{"10.91.1.1", "10.91.2.1"}},
		} {
			var peers []netip.AddrPort
			for _, p := range g.peers {
				peers = append(peers, netip.AddrPortFrom(netip.MustParseAddr(p), fwdPort))
			}
			var run func(context.Context) error
			if through == "tun" {
				f, err := Open(int(g.n.NS), g.name, 1500, fwdPort, peers)
				must("forwarder "+g.name, err)
				run = f.Run
			} else {
				p, err := OpenProxy(int(g.n.NS), g.name, 1500, fwdPort, [2]netip.AddrPort(peers), ProxyConfig{
					SNBits: pdcp.SNBits18, Scheduler: pdcp.DefaultSchedulerConfig(), TReordering: pdcp.DefaultTReordering,
				})
				must("proxy "+g.name, err)
				proxies[i], run = p, p.Run
			}
			go func() { done <- run(ctx) }()
		}
		// Up only once both sockets listen: the first packet a TUN
		// brings (an IPv6 router solicitation) would otherwise meet a
		// closed port and leave a hole the receiver waits out.
		for _, g := range []struct {
			n           *emutest.NetNS
			name, inner string
		}{{r.gws, "dcs", "10.90.9.0/24"}, {r.gwc, "dcc", "10.90.0.0/24"}} {
			must("up "+g.name, up(g.n, g.name))
			must("route to "+g.name, route(g.n, g.name, g.inner, ""))
		}
		r.stop = sync.OnceFunc(func() {
			cancel()
			for range 2 {
				if err := <-done; err != nil {
					tb.Errorf("forwarder: %v", err)
				}
			}
		})
		tb.Cleanup(r.stop)
	default:
		tb.Fatalf("gsofwd rig: through %q", through)
	}
	return r, proxies
}

func veth(a *emutest.NetNS, aIf, aAddr string, b *emutest.NetNS, bIf, bAddr string, mtu int) error {
	v := &netlink.Veth{
		LinkAttrs:     netlink.LinkAttrs{Name: aIf, MTU: mtu, TxQLen: 1000},
		PeerName:      bIf,
		PeerNamespace: netlink.NsFd(int(b.NS)),
	}
	if err := a.Handle.LinkAdd(v); err != nil {
		return err
	}
	for _, e := range []struct {
		n          *emutest.NetNS
		name, addr string
	}{{a, aIf, aAddr}, {b, bIf, bAddr}} {
		link, err := e.n.Handle.LinkByName(e.name)
		if err != nil {
			return err
		}
		if err := e.n.Handle.LinkSetMTU(link, mtu); err != nil {
			return err
		}
		ad, err := netlink.ParseAddr(e.addr)
		if err != nil {
			return err
		}
		if err := e.n.Handle.AddrAdd(link, ad); err != nil {
			return err
		}
		if err := e.n.Handle.LinkSetUp(link); err != nil {
			return err
		}
	}
	return nil
}

func up(n *emutest.NetNS, name string) error {
	link, err := n.Handle.LinkByName(name)
	if err != nil {
		return err
	}
	return n.Handle.LinkSetUp(link)
}

// route adds dst through dev, via gw when gw is not empty.
func route(n *emutest.NetNS, dev, dst, gw string) error {
	link, err := n.Handle.LinkByName(dev)
	if err != nil {
		return err
	}
	_, d, err := net.ParseCIDR(dst)
	if err != nil {
		return err
	}
	rt := &netlink.Route{LinkIndex: link.Attrs().Index, Dst: d}
	if gw != "" {
		rt.Gw = net.ParseIP(gw)
	}
	return n.Handle.RouteAdd(rt)
}

// iperf3Result is what a download reports: the receiver's goodput and the
// sender's retransmissions.
type iperf3Result struct {
	Mbps    float64
	Retrans int
	Bytes   int64
}

// download runs iperf3 with its server in srv and a reverse-mode client in
// cli (the server sends, as in a DC download) for d with streams flows.
func download(tb testing.TB, r *rig, d time.Duration, streams int) iperf3Result {
	tb.Helper()
	s := exec.Command("iperf3", "-s", "-1", "-B", srvAddr)
	if err := topo.StartIn(r.srv.NS, s); err != nil {
		tb.Fatal(err)
	}
	defer func() { s.Process.Kill(); s.Wait() }()
	var j struct {
		Error string `json:"error"`
		End   struct {
			SumSent struct {
				Retransmits int   `json:"retransmits"`
				Bytes       int64 `json:"bytes"`
			} `json:"sum_sent"`
			SumReceived struct {
				BitsPerSecond float64 `json:"bits_per_second"`
			} `json:"sum_received"`
		} `json:"end"`
	}
	var out strings.Builder
	// The server needs a moment to listen (seconds, on a busy machine):
	// until it does, the client fails, or reports the refusal in its JSON
	// and carries nothing.
	for deadline := time.Now().Add(15 * time.Second); ; {
		out.Reset()
		c := exec.Command("iperf3", "-c", srvAddr, "-R", "-J", "-t", fmt.Sprint(int(d.Seconds())), "-P", fmt.Sprint(streams))
		c.Stdout = &out
		if err := topo.StartIn(r.cli.NS, c); err != nil {
			tb.Fatal(err)
		}
		err := c.Wait()
		if err == nil {
			err = json.Unmarshal([]byte(out.String()), &j)
		}
		if err == nil && j.Error == "" && j.End.SumSent.Bytes > 0 {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("iperf3: %v %s: %s", err, j.Error, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return iperf3Result{j.End.SumReceived.BitsPerSecond / 1e6, j.End.SumSent.Retransmits, j.End.SumSent.Bytes}
}

// BenchmarkForwardTCP is issue #39's go/no-go: iperf3 TCP (CUBIC) from srv
// to cli through the rig, plainly routed over one link, and through TUN →
// UDP GSO over both links → UDP GRO → TUN, with one and four flows. The
// forwarder's Gbit/s on this machine say whether a batched user-space
// PDCP path can reach 5 Gbit/s on two cores.
func BenchmarkForwardTCP(b *testing.B) {
	emutest.RequireRoot(b)
	emutest.Exclusive(b)
	if _, err := exec.LookPath("iperf3"); err != nil {
		b.Skip("needs iperf3 (apt-get install iperf3)")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		b.Skipf("no TUN here: %v", err)
	}
	for _, through := range []string{"routed", "tun", "pdcp"} {
		for _, streams := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/P=%d", through, streams), func(b *testing.B) {
				for range b.N {
					r := newRig(b, through)
					res := download(b, r, 5*time.Second, streams)
					segs := float64(res.Bytes) / 1448
					b.ReportMetric(res.Mbps/1000, "Gbit/s")
					b.ReportMetric(100*float64(res.Retrans)/max(segs, 1), "retrans%")
					b.Logf("%s, %d flows: %.2f Gbit/s, %d retransmits of about %.0f segments", through, streams, res.Mbps/1000, res.Retrans, segs)
				}
			})
		}
	}
}

// TestForwardTCP carries a short TCP download through the forwarder: every
// byte arrives (iperf3 counts them), over both links.
func TestForwardTCP(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t) // a second of TCP at full speed loads both CPUs
	if _, err := exec.LookPath("iperf3"); err != nil {
		t.Skip("needs iperf3 (apt-get install iperf3)")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		t.Skipf("no TUN here: %v", err)
	}
	r := newRig(t, "tun")
	res := download(t, r, time.Second, 1)
	t.Logf("%.2f Gbit/s, %d retransmits, %d bytes", res.Mbps/1000, res.Retrans, res.Bytes)
	if res.Bytes == 0 || res.Mbps <= 0 {
		t.Fatalf("nothing carried: %+v", res)
	}
	for _, l := range []string{"l1s", "l2s"} {
		link, err := r.gws.Handle.LinkByName(l)
		if err != nil {
			t.Fatal(err)
		}
		if tx := link.Attrs().Statistics.TxBytes; tx < uint64(res.Bytes)/4 {
			t.Errorf("%s sent %d bytes of a %d-byte download: the batches did not alternate over both links", l, tx, res.Bytes)
		}
	}
}

// TestProxyTCP carries a TCP download through the PDCP batch path: every
// byte arrives, over both links, each wire segment numbered once, nothing
// given up or malformed, and the receiver's deliveries in COUNT order add
// up to what it received less the duplicates and late copies.
func TestProxyTCP(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t) // a second of TCP at full speed loads both CPUs
	if _, err := exec.LookPath("iperf3"); err != nil {
		t.Skip("needs iperf3 (apt-get install iperf3)")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		t.Skipf("no TUN here: %v", err)
	}
	r, proxies := newRigProxies(t, "pdcp")
	drops0 := emutest.SNMP(t, r.gwc.Do, "Udp", "RcvbufErrors")
	t0 := time.Now()
	res := download(t, r, time.Second, 1)
	t1 := time.Now()
	r.stop()
	t.Logf("download %v, stop %v", t1.Sub(t0), time.Since(t1))
	drops := emutest.SNMP(t, r.gwc.Do, "Udp", "RcvbufErrors") - drops0
	t.Logf("gwc's UDP socket dropped %d", drops)

	tx, _, _ := proxies[0].Counters()
	_, rx, malformed := proxies[1].Counters()
	t.Logf("%.2f Gbit/s, %d retransmits, %d bytes; downlink tx %+v; rx %+v", res.Mbps/1000, res.Retrans, res.Bytes, tx, rx)
	if res.Bytes == 0 || res.Mbps <= 0 {
		t.Fatalf("nothing carried: %+v", res)
	}
	if tx.PDUs < uint64(res.Bytes)/1500 || tx.Link[0] == 0 || tx.Link[1] == 0 {
		t.Errorf("downlink numbered %d PDUs (links %v) for %d bytes", tx.PDUs, tx.Link, res.Bytes)
	}
	if rx.GivenUp != 0 || malformed != 0 {
		t.Errorf("downlink receiver gave up %d, malformed %d", rx.GivenUp, malformed)
	}
	if rx.Received > tx.PDUs || rx.Delivered+uint64(proxiesHeld(proxies[1])) != rx.Received-rx.DuplicatesDiscarded-rx.OldDiscarded {
		t.Errorf("receiver received %d of %d PDUs sent, delivered %d: %+v", rx.Received, tx.PDUs, rx.Delivered, rx)
	}
}

func proxiesHeld(p *Proxy) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rx.Held()
}
