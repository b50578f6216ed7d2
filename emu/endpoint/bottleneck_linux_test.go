package endpoint

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/emutest"
)

// bottleneck is srv —vs/vm1— mid —vm2/vc— cli, with an HTB rate limit
// (bit/s on the wire) and a FIFO of queueBytes on mid's vm2 (towards the
// client), as a run's gateways shape: the server's packets queue there,
// not in the server.
func bottleneck(t *testing.T, rateBits uint64, queueBytes uint32) (srv, cli *emutest.NetNS) {
	t.Helper()
	srv, mid, cli := emutest.NewNetNS(t), emutest.NewNetNS(t), emutest.NewNetNS(t)
	emutest.Veth(t, srv, "vs", "192.168.94.1/24", mid, "vm1", "192.168.94.2/24")
	emutest.Veth(t, mid, "vm2", "192.168.95.2/24", cli, "vc", "192.168.95.1/24")
	for _, r := range []struct {
		ns       *emutest.NetNS
		dst, via string
	}{{srv, "192.168.95.0/24", "192.168.94.2"}, {cli, "192.168.94.0/24", "192.168.95.2"}} {
		_, dst, _ := net.ParseCIDR(r.dst)
		if err := r.ns.Handle.RouteAdd(&netlink.Route{Dst: dst, Gw: net.ParseIP(r.via)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := mid.Do(func() error { return os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte("1"), 0o644) }); err != nil {
		t.Fatal(err)
	}
	l, err := mid.Handle.LinkByName("vm2")
	if err != nil {
		t.Fatal(err)
	}
	idx := l.Attrs().Index
	htb := netlink.NewHtb(netlink.QdiscAttrs{LinkIndex: idx, Handle: netlink.MakeHandle(1, 0), Parent: netlink.HANDLE_ROOT})
	htb.Defcls = 1
	if err := mid.Handle.QdiscReplace(htb); err != nil {
		t.Skipf("htb: %v", err)
	}
	burst := uint32(max(2*1514, rateBits/8/1000))
	class := netlink.NewHtbClass(netlink.ClassAttrs{LinkIndex: idx, Parent: netlink.MakeHandle(1, 0), Handle: netlink.MakeHandle(1, 1)},
		netlink.HtbClassAttrs{Rate: rateBits, Ceil: rateBits, Buffer: burst, Cbuffer: burst, Quantum: 15140})
	if err := mid.Handle.ClassReplace(class); err != nil {
		t.Fatal(err)
	}
	// A byte FIFO as the leaf (a packet FIFO would count a 64 KB GSO
	// super-packet as one). vishvananda/netlink has no fifo options.
	err = mid.Do(func() error {
		req := nl.NewNetlinkRequest(unix.RTM_NEWQDISC, unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_REPLACE)
		req.AddData(&nl.TcMsg{Family: nl.FAMILY_ALL, Ifindex: int32(idx), Handle: netlink.MakeHandle(10, 0), Parent: netlink.MakeHandle(1, 1)})
		req.AddData(nl.NewRtAttr(nl.TCA_KIND, nl.ZeroTerminated("bfifo")))
		req.AddData(nl.NewRtAttr(nl.TCA_OPTIONS, binary.NativeEndian.AppendUint32(nil, queueBytes)))
		_, err := req.Execute(unix.NETLINK_ROUTE, 0)
		return err
	})
	if err != nil {
		t.Fatalf("bfifo: %v", err)
	}
	return srv, cli
}

// owdResult is one download of owdBehindBottleneck.
type owdResult struct {
	p50, p95, mbps float64
}

// bottleneckRate and bottleneckQueue are the limiter of
// owdBehindBottleneck: 50 Mbit/s, a 256 KB queue (41 ms).
const bottleneckRate, bottleneckQueue = 50_000_000, 256_000

// bottleneckQueueMs is the queue's delay at the rate.
const bottleneckQueueMs = float64(bottleneckQueue*8) / bottleneckRate * 1000

// owdBehindBottleneck runs TCP (cubic) downloads of window through a 50
// Mbit/s limiter with a 256 KB queue (41 ms), with the server's
// TCP_NOTSENT_LOWAT at 16 KiB and with the kernel's (none), and a
// quic-go one, each a subtest; judge checks each result in its subtest.
// It returns the results by subtest name.
func owdBehindBottleneck(t *testing.T, window time.Duration, judge func(t *testing.T, name string, r owdResult)) map[string]owdResult {
	got := map[string]owdResult{}
	for _, tc := range []struct {
		name  string
		proto Proto
		lowat int
	}{{"tcp-lowat16k", ProtoTCP, 16 << 10}, {"tcp-nolowat", ProtoTCP, NoLowat}, {"quic", ProtoQUIC, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			srvNS, cliNS := bottleneck(t, bottleneckRate, bottleneckQueue)
			dir := emutest.TempDir(t)
			cert, key, err := WriteSelfSigned(dir, netip.MustParseAddr("192.168.94.1"))
			if err != nil {
				t.Fatal(err)
			}
			scfg := ServerConfig{Proto: tc.proto, Listen: "192.168.94.1:4433", CertFile: cert, KeyFile: key, NotSentLowat: tc.lowat}
			if tc.proto == ProtoTCP {
				scfg.CC = "cubic"
			}
			srv := startEmuIn(t, srvNS, ServerArgs(scfg))
			addr := srv.next(t, EventReady, 10*time.Second).Addr
			ccfg := ClientConfig{Proto: tc.proto, URL: BytesURL(addr, UnboundedSize), CAFile: cert, Duration: window,
				CC: scfg.CC, OWDLog: filepath.Join(dir, "owd.csv")}
			cl := startEmuIn(t, cliNS, ClientArgs(ccfg))
			done := cl.next(t, EventDone, window+30*time.Second)
			if code := cl.wait(t, 10*time.Second); code != 0 || !done.Complete || done.OWD == nil {
				t.Fatalf("client exit %d, done %+v", code, done)
			}
			srv.cmd.Process.Signal(os.Interrupt)
			srv.wait(t, 10*time.Second)
			r := owdResult{done.OWD.P50, done.OWD.P95, done.GoodputMbps}
			got[tc.name] = r
			t.Logf("%s: %.1f Mbit/s, owd p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms (%d stamps; queue %.0f ms)",
				tc.name, done.GoodputMbps, done.OWD.P50, done.OWD.P95, done.OWD.P99, done.OWD.Max, done.OWD.N, bottleneckQueueMs)
			judge(t, tc.name, r)
		})
	}
	return got
}

// TestOWDBehindBottleneck: downloads through a limiter (owdBehindBottleneck)
// with and without TCP_NOTSENT_LOWAT and over QUIC complete with one-way
// delays, at a goodput and delays no load moves past: over a fifth of the
// rate, p95 within five times the queue plus 25 ms. What the low-water
// mark is worth is TestFidelityOWDBehindBottleneck's.
func TestOWDBehindBottleneck(t *testing.T) {
	emutest.Exclusive(t) // saturates the CPUs for the downloads
	owdBehindBottleneck(t, 2*time.Second, func(t *testing.T, name string, r owdResult) {
		if r.mbps < 0.2*bottleneckRate/1e6 {
			t.Errorf("goodput %.1f Mbit/s through a %.0f Mbit/s limiter, want at least a fifth of it", r.mbps, bottleneckRate/1e6)
		}
		if r.p50 <= 0 || r.p95 > 5*(bottleneckQueueMs+25) {
			t.Errorf("owd p50 %.1f ms, p95 %.1f ms behind a %.0f ms queue, want p95 at most %.0f ms", r.p50, r.p95, bottleneckQueueMs, 5*(bottleneckQueueMs+25))
		}
	})
}

// TestFidelityOWDBehindBottleneck: queueing is the same in all three
// downloads of owdBehindBottleneck (the flows fill the queue); what
// differs is how long a stamp waits in the server before it leaves. With
// the low-water mark the delays stay within the queue's 41 ms plus a few
// ms; without it the autotuned send buffer adds about a round trip, which
// is why the server sets it. Goodput must not suffer from it.
//
// Goodput and delays are the shared CPUs' as much as the limiter's (both
// endpoints and the kernel's softirqs run on them): a miss goes through
// the watch, and fails only on a machine measured quiet.
func TestFidelityOWDBehindBottleneck(t *testing.T) {
	h := emutest.Fidelity(t)
	got := owdBehindBottleneck(t, 4*time.Second, func(t *testing.T, name string, r owdResult) {
		var missed []string
		if r.mbps < 0.8*bottleneckRate/1e6 {
			missed = append(missed, fmt.Sprintf("goodput %.1f Mbit/s through a %.0f Mbit/s limiter, want at least 80 %%", r.mbps, bottleneckRate/1e6))
		}
		if name != "tcp-nolowat" && r.p95 > bottleneckQueueMs+25 {
			missed = append(missed, fmt.Sprintf("p95 one-way delay %.1f ms, more than the %.0f ms queue plus 25 ms", r.p95, bottleneckQueueMs))
		}
		h.Check(t, missed)
	})
	if a, b := got["tcp-lowat16k"], got["tcp-nolowat"]; a.p50 > 0 && b.p50 < a.p50+5 {
		h.Errorf(t, "p50 one-way delay %.1f ms without TCP_NOTSENT_LOWAT, %.1f ms with: the low-water mark makes no difference", b.p50, a.p50)
	}
}
