package topo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
)

func build(t *testing.T, s Spec) *Net {
	t.Helper()
	emutest.RequireRoot(t)
	n, err := Build(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// udpSend sends one datagram from node src to dst:port and returns whether
// node dstNode received it, listening inside its namespace.
func udpReach(t *testing.T, n *Net, srcNode, dstNode string, dst netip.Addr) error {
	t.Helper()
	return udpReachFrom(t, n, srcNode, netip.Addr{}, dstNode, dst)
}

// udpReachFrom is udpReach with the datagram sent from address src (zero:
// the one routing picks).
func udpReachFrom(t *testing.T, n *Net, srcNode string, src netip.Addr, dstNode string, dst netip.Addr) error {
	t.Helper()
	dn, _ := n.Node(dstNode)
	sn, _ := n.Node(srcNode)
	var conn *net.UDPConn
	if err := dn.Do(func() (err error) {
		conn, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IP(dst.AsSlice())})
		return err
	}); err != nil {
		return err
	}
	defer conn.Close()
	port := conn.LocalAddr().(*net.UDPAddr).Port
	if err := sn.Do(func() error {
		var laddr *net.UDPAddr
		if src.IsValid() {
			laddr = net.UDPAddrFromAddrPort(netip.AddrPortFrom(src, 0))
		}
		c, err := net.DialUDP("udp4", laddr, net.UDPAddrFromAddrPort(netip.AddrPortFrom(dst, uint16(port))))
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte("emu"))
		return err
	}); err != nil {
		return err
	}
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf := make([]byte, 16)
	nr, _, err := conn.ReadFromUDP(buf)
	if err != nil {
		return fmt.Errorf("%s -> %s (%s): %w", srcNode, dstNode, dst, err)
	}
	if string(buf[:nr]) != "emu" {
		return errors.New("payload mangled")
	}
	return nil
}

func txPackets(t *testing.T, n *Net, node, iface string) uint64 {
	t.Helper()
	nd, _ := n.Node(node)
	l, err := nd.Link(iface)
	if err != nil {
		t.Fatal(err)
	}
	return l.Attrs().Statistics.TxPackets
}

func TestBuildFairnessRoutesEachPath(t *testing.T) {
	n := build(t, Fairness(emutest.RunID(t)))
	for _, tc := range []struct {
		path, link string
	}{{PathDC, "l1"}, {PathLink1, "l1"}, {PathLink2, "l2"}} {
		down0 := txPackets(t, n, "gws", tc.link)
		up0 := txPackets(t, n, "gwc", tc.link)
		cli := ClientNode(tc.path)
		if err := udpReach(t, n, "srv", cli, ClientAddr(tc.path)); err != nil {
			t.Fatalf("downlink to %s: %v", tc.path, err)
		}
		if err := udpReach(t, n, cli, "srv", ServerAddr); err != nil {
			t.Fatalf("uplink from %s: %v", tc.path, err)
		}
		if d := txPackets(t, n, "gws", tc.link) - down0; d == 0 {
			t.Errorf("%s downlink did not leave gws on %s", tc.path, tc.link)
		}
		if d := txPackets(t, n, "gwc", tc.link) - up0; d == 0 {
			t.Errorf("%s uplink did not leave gwc on %s", tc.path, tc.link)
		}
	}
}

// TestBuildMPTCPClientRoutesEachAddressOverItsLink: the MPTCP client's
// first address reaches the server over link1 and back, its second over
// link2, so one subflow from each address uses one link.
func TestBuildMPTCPClientRoutesEachAddressOverItsLink(t *testing.T) {
	n := build(t, DC(emutest.RunID(t), DCOptions{Paths: []string{PathMPTCP}, Uplink: PathLink1}))
	cli := ClientNode(PathMPTCP)
	addrs := ClientAddrs(PathMPTCP)
	if len(addrs) != 2 || addrs[0] != ClientAddr(PathMPTCP) {
		t.Fatalf("MPTCP client addresses %v", addrs)
	}
	for i, link := range []string{"l1", "l2"} {
		other := []string{"l2", "l1"}[i]
		down0, up0 := txPackets(t, n, "gws", link), txPackets(t, n, "gwc", link)
		downOther, upOther := txPackets(t, n, "gws", other), txPackets(t, n, "gwc", other)
		if err := udpReach(t, n, "srv", cli, addrs[i]); err != nil {
			t.Fatalf("downlink to %s: %v", addrs[i], err)
		}
		if err := udpReachFrom(t, n, cli, addrs[i], "srv", ServerAddr); err != nil {
			t.Fatalf("uplink from %s: %v", addrs[i], err)
		}
		if txPackets(t, n, "gws", link) == down0 || txPackets(t, n, "gwc", link) == up0 {
			t.Errorf("%s: traffic did not use %s", addrs[i], link)
		}
		if txPackets(t, n, "gws", other) != downOther || txPackets(t, n, "gwc", other) != upOther {
			t.Errorf("%s: traffic also used %s", addrs[i], other)
		}
	}
}

func TestCloseRemovesEverything(t *testing.T) {
	id := emutest.RunID(t)
	n := build(t, Throughput(id))
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	names, _ := ListNamespaces()
	for _, name := range names {
		if strings.Contains(name, id) {
			t.Errorf("namespace %s survived Close", name)
		}
	}
}

func TestBuildFailureLeavesNothing(t *testing.T) {
	emutest.RequireRoot(t)
	id := emutest.RunID(t)
	s := Throughput(id)
	// A route through an interface that exists only in the spec's typo makes
	// the build fail after namespaces and veths exist.
	s.Nodes[0].Routes = append(s.Nodes[0].Routes, Route{Dst: netip.MustParsePrefix("192.0.2.0/24"), Via: netip.MustParseAddr("198.51.100.1")})
	_, err := Build(context.Background(), s)
	if err == nil {
		t.Fatal("build with an unreachable gateway succeeded")
	}
	if !strings.Contains(err.Error(), "route add 192.0.2.0/24") {
		t.Errorf("error does not name the failed step: %v", err)
	}
	if _, err := os.Stat(filepath.Join(NetnsDir, NamespaceName(id, "srv"))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("namespace left behind after failed build (stat: %v)", err)
	}
}

// TestDeleteNamespaceLeftByAKilledBuild: a run killed between creating a
// namespace's file and mounting the namespace on it leaves a plain file;
// DeleteNamespace removes it.
func TestDeleteNamespaceLeftByAKilledBuild(t *testing.T) {
	emutest.RequireRoot(t)
	if err := prepareNetnsDir(); err != nil {
		t.Fatal(err)
	}
	name := NamespaceName(emutest.RunID(t), "srv")
	path := filepath.Join(NetnsDir, name)
	if err := os.WriteFile(path, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(path) })
	if err := DeleteNamespace(name); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still there: %v", path, err)
	}
}
