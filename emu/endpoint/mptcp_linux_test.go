package endpoint

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/internal/mptcp"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/internal/mib"
	"github.com/dc-emu/emu/internal/nsthread"
	"github.com/dc-emu/emu/topo"
)

// pmSetup configures a node's path manager through package mptcp.
func pmSetup(t *testing.T, nd *topo.NodeNS, l mptcp.Limits, eps ...mptcp.Endpoint) {
	t.Helper()
	pm, err := mptcp.OpenPM(int(nd.NS))
	if err != nil {
		t.Fatal(err)
	}
	defer pm.Close()
	if err := pm.SetLimits(l); err != nil {
		t.Fatal(err)
	}
	for _, e := range eps {
		if _, err := pm.AddEndpoint(e); err != nil {
			t.Fatal(err)
		}
	}
}

func txBytes(t *testing.T, nd *topo.NodeNS, iface string) uint64 {
	t.Helper()
	l, err := nd.Link(iface)
	if err != nil {
		t.Fatal(err)
	}
	return l.Attrs().Statistics.TxBytes
}

// TestMPTCPTwoSubflowsOverBothLinks runs an MPTCP download from the
// topology's MPTCP client (one address per link) with a subflow endpoint on
// its link2 address: the connection gets two subflows, one per link, both
// carry data, and the server's TCP_INFO log has rows for both with the
// congestion control set on the MPTCP socket.
func TestMPTCPTwoSubflowsOverBothLinks(t *testing.T) {
	emutest.RequireMPTCP(t)
	emutest.Exclusive(t) // saturates the CPUs for the download
	n, err := topo.Build(context.Background(), topo.DC(emutest.RunID(t), topo.DCOptions{Paths: []string{topo.PathMPTCP}, Uplink: topo.PathLink1}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	srvNode, _ := n.Node("srv")
	cliNode, _ := n.Node(topo.ClientNode(topo.PathMPTCP))
	gws, _ := n.Node("gws")
	addrs := topo.ClientAddrs(topo.PathMPTCP)
	pmSetup(t, srvNode, mptcp.Limits{Subflows: 2})
	pmSetup(t, cliNode, mptcp.Limits{Subflows: 2}, mptcp.Endpoint{Addr: addrs[1], Flags: mptcp.FlagSubflow})

	dir := t.TempDir()
	cert, key, err := WriteSelfSigned(dir, topo.ServerAddr)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "tcpinfo.csv")
	srv := startEmuIn(t, &emutest.NetNS{NS: srvNode.NS}, ServerArgs(ServerConfig{Proto: ProtoTCP,
		Listen: netip.AddrPortFrom(topo.ServerAddr, 443).String(), CertFile: cert, KeyFile: key, CC: "reno",
		MPTCP: true, TCPInfoLog: logPath}))
	addr := srv.next(t, EventReady, 10*time.Second).Addr
	l1, l2 := txBytes(t, gws, "l1"), txBytes(t, gws, "l2")
	cl := startEmuIn(t, &emutest.NetNS{NS: cliNode.NS}, ClientArgs(ClientConfig{Proto: ProtoTCP, MPTCP: true,
		URL: BytesURL(addr, UnboundedSize), CAFile: cert, Duration: time.Second, CC: "reno"}))
	done := cl.next(t, EventDone, 20*time.Second)
	code := cl.wait(t, 5*time.Second)
	// Kernel 6.18's MPTCP, about once in a few hundred connections here,
	// hands the server a client stream with bytes missing or out of place
	// when the second subflow joins during the TLS handshake: the server
	// reads a record header with a random version and both ends fail
	// within 4 ms, before any byte of the body. Nothing of emu is on that
	// path (plain veths, no emulator): the test skips, with the
	// namespaces' MPTcpExt counters, rather than try again.
	if done.Bytes == 0 && strings.Contains(done.Error, "tls: ") {
		srv.cmd.Process.Kill()
		t.Skipf("the kernel's MPTCP stream was corrupted before any byte arrived (client: %s); MPTcpExt counters: server %s; client %s",
			done.Error, mptcpMIBNonZero(t, srvNode), mptcpMIBNonZero(t, cliNode))
	}
	if code != 0 || !done.Complete || done.Error != "" {
		t.Fatalf("client exit %d, done %+v", code, done)
	}
	acc := srv.next(t, EventAccept, 5*time.Second)
	if !acc.MPTCP || acc.Error != "" || acc.CC != "reno" || !strings.HasPrefix(acc.Remote, addrs[0].String()+":") {
		t.Errorf("accept %+v", acc)
	}
	srv.cmd.Process.Signal(syscall.SIGTERM)
	if code := srv.wait(t, 10*time.Second); code != 0 {
		t.Errorf("server exit %d", code)
	}
	d1, d2 := txBytes(t, gws, "l1")-l1, txBytes(t, gws, "l2")-l2

	rows := readTCPInfoLog(t, logPath)
	last := map[uint32]results.TCPInfoRow{}
	for _, r := range rows {
		last[r.Subflow] = r
	}
	t.Logf("%.1f MB in %.2f s (%.0f Mbit/s); gws sent %.1f MB on l1, %.1f MB on l2; %d log rows",
		float64(done.Bytes)/1e6, done.Seconds, done.GoodputMbps, float64(d1)/1e6, float64(d2)/1e6, len(rows))
	if len(last) != 2 {
		t.Fatalf("log has subflows %v, want two", last)
	}
	var acked int64
	byRemote := map[netip.Addr]results.TCPInfoRow{}
	for id, r := range last {
		t.Logf("subflow %d %s → %s: cc %s, acked %.1f MB, srtt %.3f ms, cwnd %d B, retrans %d",
			id, r.Local, r.Remote, r.CC, float64(r.BytesAcked)/1e6, r.SRTTMs, r.CwndBytes, r.TotalRetrans)
		if id == 0 || r.BytesAcked <= 0 || r.CC != "reno" || r.Local.Addr() != topo.ServerAddr {
			t.Errorf("subflow %d: %+v", id, r)
		}
		acked += r.BytesAcked
		byRemote[r.Remote.Addr()] = r
	}
	if _, ok := byRemote[addrs[0]]; !ok {
		t.Errorf("no subflow from %s", addrs[0])
	}
	if _, ok := byRemote[addrs[1]]; !ok {
		t.Errorf("no subflow from %s", addrs[1])
	}
	// A subflow torn down before the last sample keeps its last row, so the
	// log may miss what it acknowledged in its last interval: 2 % here.
	// That interval is the sampler's ticker's, which a busy machine
	// stretches, but not ten times.
	if float64(acked) < 0.8*float64(done.Bytes) {
		t.Errorf("subflows acknowledged %d bytes in their last rows, the client received %d; want at least 80 %%", acked, done.Bytes)
	}
	// Each subflow's bytes left gws on its own link.
	for i, d := range []uint64{d1, d2} {
		if r := byRemote[addrs[i]]; d < uint64(r.BytesAcked) {
			t.Errorf("link%d carried %d bytes, its subflow %d acknowledged bytes", i+1, d, r.BytesAcked)
		}
	}
}

// mptcpMIBNonZero lists the namespace's non-zero MPTcpExt counters.
func mptcpMIBNonZero(t *testing.T, nd *topo.NodeNS) string {
	var out []string
	err := nsthread.Do(int(nd.NS), func() error {
		m, err := mib.Group(mib.Netstat, "MPTcpExt")
		for name, v := range m {
			if v != 0 {
				out = append(out, fmt.Sprintf("%s=%d", name, v))
			}
		}
		slices.Sort(out)
		return err
	})
	if err != nil {
		return err.Error()
	}
	return strings.Join(out, " ")
}

// TestMPTCPFallbackFails: an MPTCP client against a plain TCP server, and a
// plain client against an MPTCP server, both fail and say why.
func TestMPTCPFallbackFails(t *testing.T) {
	emutest.RequireMPTCP(t)
	ns := emutest.NewNetNS(t)
	_, cert, key := testCert(t)
	t.Run("client", func(t *testing.T) {
		srv := startEmuIn(t, ns, ServerArgs(ServerConfig{Proto: ProtoTCP, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key}))
		addr := srv.next(t, EventReady, 10*time.Second).Addr
		cl := startEmuIn(t, ns, ClientArgs(ClientConfig{Proto: ProtoTCP, MPTCP: true, URL: BytesURL(addr, 1000), CAFile: cert}))
		done := cl.next(t, EventDone, 10*time.Second)
		if code := cl.wait(t, 5*time.Second); code == 0 || done.Complete {
			t.Errorf("client exit %d, done %+v", code, done)
		}
		t.Logf("client error: %s", done.Error)
		if !strings.Contains(done.Error, "MPTCP fell back to plain TCP: the server's SYN/ACK carried no MP_CAPABLE") {
			t.Errorf("error %q does not say MPTCP fell back and why", done.Error)
		}
	})
	t.Run("server", func(t *testing.T) {
		srv := startEmuIn(t, ns, ServerArgs(ServerConfig{Proto: ProtoTCP, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key, MPTCP: true}))
		addr := srv.next(t, EventReady, 10*time.Second).Addr
		cl := startEmuIn(t, ns, ClientArgs(ClientConfig{Proto: ProtoTCP, URL: BytesURL(addr, 1000), CAFile: cert}))
		acc := srv.next(t, EventAccept, 10*time.Second)
		t.Logf("accept: %+v", acc)
		if !acc.MPTCP || !strings.Contains(acc.Error, "MPTCP fell back to plain TCP") || !strings.Contains(acc.Error, "the client's SYN carried no MP_CAPABLE") {
			t.Errorf("accept event %+v does not say the connection fell back and why", acc)
		}
		if done := cl.next(t, EventDone, 10*time.Second); done.Complete {
			t.Errorf("download over a refused connection completed: %+v", done)
		}
	})
}
