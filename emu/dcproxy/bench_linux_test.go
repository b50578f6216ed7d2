package dcproxy

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
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/delayline"
	"github.com/dc-emu/emu/emu/internal/gsofwd"
	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/emu/internal/nft"
	"github.com/dc-emu/emu/emu/internal/rtsched"
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
	// stop ends the forwarders or proxies and waits for them (when
	// routed, a no-op); cleanup calls it too.
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
	return newRigWith(tb, through, rigLinks{})
}

// rigLinks shapes and delays the rig's two links as an emulation would:
// an HTB rate limiter on each link's sending end (both ways) and emu's
// delay line on its receiving end (GSO batches kept whole, as the delay
// line does without per-packet loss). The zero value leaves the links
// plain veths. sched is the proxies' scheduler (zero: batch 100, 1:1).
type rigLinks struct {
	rate  float64          // bit/s per link; 0: unshaped
	delay [2]time.Duration // one-way, link 1 and link 2
	sched pdcp.SchedulerConfig
}

func newRigWith(tb testing.TB, through string, links rigLinks) (*rig, [2]*Proxy) {
	var proxies [2]*Proxy
	tb.Helper()
	r := &rig{srv: emutest.NewNetNS(tb), gws: emutest.NewNetNS(tb), gwc: emutest.NewNetNS(tb), cli: emutest.NewNetNS(tb), stop: func() {}}
	must := func(what string, err error) {
		tb.Helper()
		if err != nil {
			tb.Fatalf("dcproxy rig: %s: %v", what, err)
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
	if links.rate > 0 {
		for _, l := range []struct {
			n    *emutest.NetNS
			name string
		}{{r.gws, "l1s"}, {r.gws, "l2s"}, {r.gwc, "l1c"}, {r.gwc, "l2c"}} {
			must("shaper "+l.name, shape(l.n, l.name, links.rate))
		}
	}
	if links.delay != [2]time.Duration{} {
		for _, n := range []*emutest.NetNS{r.srv, r.cli} {
			must("TCP buffers", n.Do(func() error {
				for _, f := range []string{"tcp_rmem", "tcp_wmem"} {
					if err := os.WriteFile("/proc/sys/net/ipv4/"+f, []byte("4096 131072 134217728"), 0o644); err != nil {
						return err
					}
				}
				return nil
			}))
		}
		delayLines(tb, r.gwc, [2]string{"l1c", "l2c"}, links.delay)
		delayLines(tb, r.gws, [2]string{"l1s", "l2s"}, links.delay)
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
				f, err := gsofwd.Open(int(g.n.NS), g.name, 1500, fwdPort, peers)
				must("forwarder "+g.name, err)
				run = f.Run
			} else {
				p, err := OpenProxy(int(g.n.NS), g.name, 1500, fwdPort, [2]netip.AddrPort(peers), ProxyConfig{
					SNBits: pdcp.SNBits18, Scheduler: links.sched.WithDefaults(), TReordering: pdcp.DefaultTReordering,
				})
				must("proxy "+g.name, err)
				proxies[i], run = p, p.Run
			}
			go func() { done <- run(ctx) }()
		}
		// Up only once both sockets listen: the first packet a TUN
		// brings (an IPv6 router solicitation) would otherwise meet a
		// closed port and leave a hole the receiver waits out. A proxy
		// comes up through Up, which tells it that the device is up: gws's
		// solicitation can reach gwc before gwc's device is, and the
		// write it refuses is not the run's (RefusedBeforeUp).
		for i, g := range []struct {
			n           *emutest.NetNS
			name, inner string
		}{{r.gws, "dcs", "10.90.9.0/24"}, {r.gwc, "dcc", "10.90.0.0/24"}} {
			if proxies[i] != nil {
				must("up "+g.name, proxies[i].Up())
			} else {
				must("up "+g.name, up(g.n, g.name))
			}
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
		tb.Fatalf("dcproxy rig: through %q", through)
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

// shape puts an HTB rate limiter of rate bit/s on dev's egress, with a
// burst of about a millisecond as emu's shaper has.
func shape(n *emutest.NetNS, dev string, rate float64) error {
	link, err := n.Handle.LinkByName(dev)
	if err != nil {
		return err
	}
	idx := link.Attrs().Index
	htb := netlink.NewHtb(netlink.QdiscAttrs{LinkIndex: idx, Handle: netlink.MakeHandle(1, 0), Parent: netlink.HANDLE_ROOT})
	htb.Defcls = 1
	if err := n.Handle.QdiscAdd(htb); err != nil {
		return err
	}
	burst := uint32(max(2*1600, rate/8/1000))
	return n.Handle.ClassAdd(netlink.NewHtbClass(
		netlink.ClassAttrs{LinkIndex: idx, Parent: netlink.MakeHandle(1, 0), Handle: netlink.MakeHandle(1, 1)},
		netlink.HtbClassAttrs{Rate: uint64(rate), Ceil: uint64(rate), Buffer: burst, Cbuffer: burst, Quantum: 10 * 1600}))
}

// delayLines delays what arrives on each of devs in n by the delay line of
// emu (queues 10 and 11, at prerouting priority -300 as on a gateway).
func delayLines(tb testing.TB, n *emutest.NetNS, devs [2]string, delay [2]time.Duration) {
	tb.Helper()
	var rules []nft.QueueRule
	for i, dev := range devs {
		num := uint16(10 + i)
		l, err := delayline.New(uint64(i+1), delayline.Params{Delay: delay[i]})
		if err != nil {
			tb.Fatal(err)
		}
		q, err := nfq.Open(delayline.QueueConfig(int(n.NS), num, false))
		if err != nil {
			tb.Fatal(err)
		}
		lp := delayline.Start(q, l)
		tb.Cleanup(func() {
			if err := lp.Close(); err != nil {
				tb.Errorf("delay line %s: %v", dev, err)
			}
			q.Close()
		})
		rules = append(rules, nft.QueueRule{IIf: dev, Queue: num})
	}
	chains := []nft.Chain{{Name: "delay", Hook: nft.Prerouting, Priority: -300, Rules: rules}}
	if _, err := nft.Apply(int(n.NS), "emu-delay", chains); err != nil {
		tb.Fatal(err)
	}
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

// iperf3JSON is what download reads of iperf3 -J.
type iperf3JSON struct {
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

// An amount is how much a download carries: iperf3's -t (whole seconds)
// or -n (bytes).
type amount []string

func seconds(d time.Duration) amount { return amount{"-t", fmt.Sprint(int(d.Seconds()))} }
func megabytes(n int) amount         { return amount{"-n", fmt.Sprintf("%dM", n)} }

// shortTransfer is the megabytes of a tier-1 download: a few hundred
// milliseconds at full speed here, a fraction of iperf3's shortest timed
// run (1 s), and still tens of thousands of wire segments over both links.
const shortTransfer = 128

// download runs iperf3 with its server in srv and a reverse-mode client in
// cli (the server sends, as in a DC download) for how much with streams
// flows.
func download(tb testing.TB, r *rig, how amount, streams int) iperf3Result {
	tb.Helper()
	s := exec.Command("iperf3", "-s", "-1", "-B", srvAddr)
	var srvOut strings.Builder
	s.Stdout, s.Stderr = &srvOut, &srvOut
	if err := topo.StartIn(r.srv.NS, s); err != nil {
		tb.Fatal(err)
	}
	defer func() { s.Process.Kill(); s.Wait() }()
	var out strings.Builder
	// The server needs a moment to listen (seconds, on a busy machine):
	// until it does, the client fails, or reports the refusal in its JSON
	// and carries nothing.
	var j iperf3JSON
	for deadline := time.Now().Add(15 * time.Second); ; {
		out.Reset()
		j = iperf3JSON{}
		args := append([]string{"-c", srvAddr, "-R", "-J", "-C", "cubic", "-P", fmt.Sprint(streams)}, how...)
		c := exec.Command("iperf3", args...)
		c.Stdout = &out
		if err := topo.StartIn(r.cli.NS, c); err != nil {
			tb.Fatal(err)
		}
		err := c.Wait()
		if jerr := json.Unmarshal([]byte(out.String()), &j); err == nil {
			err = jerr
		}
		if err == nil && j.Error == "" && j.End.SumSent.Bytes > 0 {
			break
		}
		// Only a refused connection says the server does not listen
		// yet; any other failure is the transfer's (the one-off server
		// has gone with it).
		refused := strings.Contains(j.Error, "Connection refused")
		if !refused || time.Now().After(deadline) {
			tb.Fatalf("iperf3: %v %s: %s\nserver: %s", err, j.Error, out.String(), srvOut.String())
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
	skipWithoutTUN(b)
	for _, through := range []string{"routed", "tun", "pdcp"} {
		for _, streams := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/P=%d", through, streams), func(b *testing.B) {
				for range b.N {
					r := newRig(b, through)
					res := download(b, r, seconds(5*time.Second), streams)
					segs := float64(res.Bytes) / 1448
					b.ReportMetric(res.Mbps/1000, "Gbit/s")
					b.ReportMetric(100*float64(res.Retrans)/max(segs, 1), "retrans%")
					b.Logf("%s, %d flows: %.2f Gbit/s, %d retransmits of about %.0f segments", through, streams, res.Mbps/1000, res.Retrans, segs)
				}
			})
		}
	}
}

// skipWithoutTUN skips a test or benchmark of the rig where iperf3 or
// TUN devices are missing.
func skipWithoutTUN(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("iperf3"); err != nil {
		tb.Skip("needs iperf3 (apt-get install iperf3)")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		tb.Skipf("no TUN here: %v", err)
	}
}

// TestForwardTCP carries a short TCP download through the forwarder: every
// byte arrives (iperf3 counts them), over both links.
func TestForwardTCP(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t) // TCP at full speed loads both CPUs
	skipWithoutTUN(t)
	r := newRig(t, "tun")
	res := download(t, r, megabytes(shortTransfer), 1)
	t.Logf("%.2f Gbit/s, %d retransmits, %d bytes", res.Mbps/1000, res.Retrans, res.Bytes)
	if res.Bytes < shortTransfer<<20 || res.Mbps <= 0 {
		t.Fatalf("carried %d bytes of %d: %+v", res.Bytes, shortTransfer<<20, res)
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

// proxyRun is a download through the PDCP batch path and what its
// proxies counted once they stopped.
type proxyRun struct {
	res      iperf3Result
	gws, gwc ProxyCounters
	held     int   // the SDUs gwc's receiver still held
	drops    int64 // datagrams gwc's UDP socket dropped, its buffer full
}

// proxyDownload carries a download of how much through the PDCP batch
// path and stops the proxies before it reads their counters.
func proxyDownload(t *testing.T, how amount) proxyRun {
	t.Helper()
	r, proxies := newRigProxies(t, "pdcp")
	drops0 := emutest.SNMP(t, r.gwc.Do, "Udp", "RcvbufErrors")
	t0 := time.Now()
	res := download(t, r, how, 1)
	t1 := time.Now()
	r.stop()
	t.Logf("download %v, stop %v", t1.Sub(t0), time.Since(t1))
	run := proxyRun{res: res, gws: proxies[0].Counters(), gwc: proxies[1].Counters(), held: proxiesHeld(proxies[1]),
		drops: emutest.SNMP(t, r.gwc.Do, "Udp", "RcvbufErrors") - drops0}
	t.Logf("%.2f Gbit/s, %d retransmits, %d bytes; downlink tx %+v; rx %+v; gwc's UDP socket dropped %d",
		res.Mbps/1000, res.Retrans, res.Bytes, run.gws.Tx, run.gwc.Rx, run.drops)
	t.Logf("gwc's socket: wait %v a second (%v over the run), at most %d bytes", run.gwc.SocketWait, run.gwc.SocketMeanWait, run.gwc.SocketMax)
	return run
}

// check is what no load can change in a download through the batch path:
// every byte arrives (TCP's), over both links, each wire segment numbered
// once, no TUN write refused in the run and nothing malformed, the
// receiver's deliveries in COUNT order add up to what it received less
// the duplicates and late copies, and it gives up no PDU but those gwc's
// socket dropped. A busy host can make the receive loop fall behind the
// links and its socket overflow; TestFidelityProxyTCP judges that.
func (run proxyRun) check(t *testing.T, want int64) {
	t.Helper()
	res, tx, rx := run.res, run.gws.Tx, run.gwc.Rx
	if res.Bytes < want || res.Mbps <= 0 {
		t.Fatalf("carried %d bytes of %d: %+v", res.Bytes, want, res)
	}
	if tx.PDUs < uint64(res.Bytes)/1500 || tx.Link[0] == 0 || tx.Link[1] == 0 {
		t.Errorf("downlink numbered %d PDUs (links %v) for %d bytes", tx.PDUs, tx.Link, res.Bytes)
	}
	for _, c := range []struct {
		end string
		ProxyCounters
	}{{"gws", run.gws}, {"gwc", run.gwc}} {
		if c.Malformed != 0 || c.Refused != 0 {
			t.Errorf("%s: malformed %d, TUN writes refused %d (%v, first: %q)", c.end, c.Malformed, c.Refused, c.RefusedErrno, c.FirstRefusal)
		}
		if c.RefusedBeforeUp != 0 {
			t.Logf("%s: %d TUN writes refused before its device was up", c.end, c.RefusedBeforeUp)
		}
	}
	if rx.GivenUp > uint64(max(run.drops, 0)) {
		t.Errorf("downlink receiver gave up %d PDUs, more than gwc's UDP socket dropped (%d)", rx.GivenUp, run.drops)
	}
	if rx.Received > tx.PDUs || rx.Delivered+uint64(run.held) != rx.Received-rx.DuplicatesDiscarded-rx.OldDiscarded {
		t.Errorf("receiver received %d of %d PDUs sent, delivered %d: %+v", rx.Received, tx.PDUs, rx.Delivered, rx)
	}
}

// TestProxyTCP carries a short TCP download through the PDCP batch path
// and checks what no load can change (proxyRun.check).
func TestProxyTCP(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t) // TCP at full speed loads both CPUs
	skipWithoutTUN(t)
	run := proxyDownload(t, megabytes(shortTransfer))
	run.check(t, shortTransfer<<20)
}

// TestFidelityProxyTCP carries a second of TCP through the plain
// forwarder and then through the PDCP batch path: the batch path carries
// at least proxyShare of the forwarder's rate (the PDCP stages cost under
// 2 % of its CPU, docs/design.md), and its receive loop keeps up with the
// links at that rate: gwc's socket drops nothing and the receiver gives
// up no PDU.
func TestFidelityProxyTCP(t *testing.T) {
	emutest.RequireRoot(t)
	skipWithoutTUN(t)
	h := emutest.Fidelity(t)
	fwd := newRig(t, "tun")
	plain := download(t, fwd, seconds(time.Second), 1)
	fwd.stop()
	t.Logf("forwarder: %.2f Gbit/s, %d retransmits, %d bytes", plain.Mbps/1000, plain.Retrans, plain.Bytes)
	run := proxyDownload(t, seconds(time.Second))
	run.check(t, 1)
	if rx := run.gwc.Rx; rx.GivenUp != 0 || run.drops != 0 {
		h.Errorf(t, "downlink receiver gave up %d PDUs, gwc's UDP socket dropped %d: the receive loop fell behind", rx.GivenUp, run.drops)
	}
	if run.res.Mbps < proxyShare*plain.Mbps {
		h.Errorf(t, "the batch path carried %.2f Gbit/s, under %.0f %% of the forwarder's %.2f", run.res.Mbps/1000, 100*proxyShare, plain.Mbps/1000)
	}
}

// proxyShare is the least share of the plain forwarder's rate the batch
// path carries in TestFidelityProxyTCP.
const proxyShare = 0.5

func proxiesHeld(p *Proxy) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rx.Held()
}

// BenchmarkProxyDC is issue #39's measurement on shaped and delayed links:
// iperf3 TCP (CUBIC, buffers up to 128 MB) from srv to cli through the
// PDCP batch path over two links with HTB rate limiters and emu's delay
// lines, next to the same download routed over link 1 alone. Cases:
// 2 × 6 Gbit/s at 1 ms each way with 1 and 4 flows; 2 × 3 Gbit/s with
// 10 and 30 ms (the receiver holds about the 20 ms difference) against
// 20 and 20 ms; and duplication on 2 × 3 Gbit/s at 1 ms; and, to tell
// the shapers' cost from the delay lines', each alone. The rtcpu case is
// 2 × 6 Gbit/s at 1 ms with the delay lines' real-time threads and sysmon
// kept on the last CPU (emu's run.rt_cpus).
func BenchmarkProxyDC(b *testing.B) {
	emutest.RequireRoot(b)
	emutest.Exclusive(b)
	skipWithoutTUN(b)
	ms := time.Millisecond
	for _, c := range []struct {
		name    string
		through string
		streams int
		links   rigLinks
		rtCPU   bool // the real-time threads on the last CPU
	}{
		// What each half costs: shapers alone, delay lines alone (with
		// the plain forwarder and plain routing beside).
		{"2x6gbit-0ms/pdcp/P=1", "pdcp", 1, rigLinks{rate: 6e9}, false},
		{"unshaped-1ms/pdcp/P=1", "pdcp", 1, rigLinks{delay: [2]time.Duration{ms, ms}}, false},
		{"unshaped-1ms/tun/P=1", "tun", 1, rigLinks{delay: [2]time.Duration{ms, ms}}, false},
		{"unshaped-1ms/routed/P=1", "routed", 1, rigLinks{delay: [2]time.Duration{ms, ms}}, false},
		{"2x6gbit-1ms/routed/P=1", "routed", 1, rigLinks{rate: 6e9, delay: [2]time.Duration{ms, ms}}, false},
		{"2x6gbit-1ms/pdcp/P=1", "pdcp", 1, rigLinks{rate: 6e9, delay: [2]time.Duration{ms, ms}}, false},
		{"2x6gbit-1ms/pdcp/P=4", "pdcp", 4, rigLinks{rate: 6e9, delay: [2]time.Duration{ms, ms}}, false},
		{"2x6gbit-1ms/pdcp-rtcpu/P=1", "pdcp", 1, rigLinks{rate: 6e9, delay: [2]time.Duration{ms, ms}}, true},
		{"2x3gbit-20ms-20ms/pdcp/P=1", "pdcp", 1, rigLinks{rate: 3e9, delay: [2]time.Duration{20 * ms, 20 * ms}}, false},
		{"2x3gbit-10ms-30ms/pdcp/P=1", "pdcp", 1, rigLinks{rate: 3e9, delay: [2]time.Duration{10 * ms, 30 * ms}}, false},
		{"2x3gbit-1ms/duplicate/P=1", "pdcp", 1, rigLinks{rate: 3e9, delay: [2]time.Duration{ms, ms}, sched: pdcp.SchedulerConfig{Kind: pdcp.KindDuplicate}}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.rtCPU {
				keepRealtimeOnLast(b)
			}
			for range b.N {
				r, proxies := newRigWith(b, c.through, c.links)
				drops0 := emutest.SNMP(b, r.gwc.Do, "Udp", "RcvbufErrors")
				res := download(b, r, seconds(5*time.Second), c.streams)
				drops := emutest.SNMP(b, r.gwc.Do, "Udp", "RcvbufErrors") - drops0
				r.stop()
				segs := float64(res.Bytes) / 1448
				b.ReportMetric(res.Mbps/1000, "Gbit/s")
				b.ReportMetric(100*float64(res.Retrans)/max(segs, 1), "retrans%")
				msg := fmt.Sprintf("%s: %.2f Gbit/s, %d retransmits of about %.0f segments", c.name, res.Mbps/1000, res.Retrans, segs)
				if proxies[1] != nil {
					gwc := proxies[1].Counters()
					rx := gwc.Rx
					b.ReportMetric(float64(rx.GivenUp), "given_up")
					b.ReportMetric(float64(rx.HoldTime.Mean().Microseconds())/1000, "hold_mean_ms")
					gws := proxies[0].Counters()
					msg += fmt.Sprintf("; downlink PDUs %d (links %v), received %d, duplicates %d, held at most %d, given up %d, hold %v; malformed %d, TUN refused %d, socket drops %d; PDUs per send %.1f, per receive batch %.1f, SDUs per TUN write %.1f",
						gws.Tx.PDUs, gws.Tx.Link, rx.Received, rx.DuplicatesDiscarded, rx.MaxBuffered, rx.GivenUp, rx.HoldTime, gwc.Malformed, gwc.Refused, drops,
						float64(gws.Tx.Link[0]+gws.Tx.Link[1])/float64(max(gws.Sends, 1)), float64(rx.Received)/float64(max(gwc.Reads, 1)), float64(rx.Delivered)/float64(max(gwc.Writes, 1)))
					b.ReportMetric(float64(gwc.SocketMeanWait.Microseconds())/1000, "socket_wait_ms")
					msg += fmt.Sprintf("; gwc's socket: waited %v a second, %v over the run, at most %d bytes", gwc.SocketWait, gwc.SocketMeanWait, gwc.SocketMax)
					up := gws.Rx
					msg += fmt.Sprintf("; uplink PDUs %d, received %d, held at most %d, given up %d, hold %v", gwc.Tx.PDUs, up.Received, up.MaxBuffered, up.GivenUp, up.HoldTime)
				}
				b.Log(msg)
			}
		})
	}
}

// keepRealtimeOnLast keeps the delay lines' real-time threads and sysmon
// on the process's last CPU until the benchmark ends (run.rt_cpus).
func keepRealtimeOnLast(b *testing.B) {
	_, last := emutest.SpareCPU(b)
	var set unix.CPUSet
	set.Set(last)
	if err := rtsched.SetCPUs(set, rtsched.PacketPriority); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rtsched.SetCPUs(unix.CPUSet{}, 0) })
}
