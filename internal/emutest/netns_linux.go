package emutest

import (
	"testing"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/nsthread"
)

// NetNS is an anonymous network namespace private to one test, with a
// netlink handle bound to it. It is deleted when the test ends.
type NetNS struct {
	NS     netns.NsHandle
	Handle *netlink.Handle
}

// NewNetNS creates a fresh namespace without moving the calling goroutine
// into it, brings its loopback up and registers its removal with t.Cleanup.
func NewNetNS(tb testing.TB) *NetNS {
	tb.Helper()
	RequireRoot(tb)
	ns, err := newNS()
	if err != nil {
		tb.Fatalf("emutest: new netns: %v", err)
	}
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		ns.Close()
		tb.Fatalf("emutest: netlink handle: %v", err)
	}
	n := &NetNS{NS: ns, Handle: h}
	tb.Cleanup(func() {
		h.Close()
		ns.Close()
	})
	lo, err := h.LinkByName("lo")
	if err != nil {
		tb.Fatalf("emutest: lo: %v", err)
	}
	if err := h.LinkSetUp(lo); err != nil {
		tb.Fatalf("emutest: lo up: %v", err)
	}
	return n
}

// newNS makes an unnamed namespace on a locked thread (nsthread.Run moves
// the thread back) and returns a handle to it.
func newNS() (netns.NsHandle, error) {
	var ns netns.NsHandle
	err := nsthread.Run(func() (err error) {
		ns, err = netns.New()
		return err
	})
	return ns, err
}

// Do runs f on a thread inside the namespace and returns its error.
func (n *NetNS) Do(f func() error) error { return nsthread.Do(int(n.NS), f) }

// Veth joins a and b with a veth pair, nameA in a and nameB in b, each with
// its address (CIDR, e.g. "192.168.77.1/24") and up. It goes with the
// namespaces when the test ends.
func Veth(tb testing.TB, a *NetNS, nameA, addrA string, b *NetNS, nameB, addrB string) {
	tb.Helper()
	v := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: nameA}, PeerName: nameB, PeerNamespace: netlink.NsFd(b.NS)}
	if err := a.Handle.LinkAdd(v); err != nil {
		tb.Fatalf("emutest: veth %s-%s: %v", nameA, nameB, err)
	}
	for _, side := range []struct {
		ns         *NetNS
		name, addr string
	}{{a, nameA, addrA}, {b, nameB, addrB}} {
		l, err := side.ns.Handle.LinkByName(side.name)
		if err != nil {
			tb.Fatalf("emutest: veth %s: %v", side.name, err)
		}
		addr, err := netlink.ParseAddr(side.addr)
		if err != nil {
			tb.Fatalf("emutest: veth %s: address %q: %v", side.name, side.addr, err)
		}
		if err := side.ns.Handle.AddrAdd(l, addr); err != nil {
			tb.Fatalf("emutest: veth %s: add %s: %v", side.name, side.addr, err)
		}
		if err := side.ns.Handle.LinkSetUp(l); err != nil {
			tb.Fatalf("emutest: veth %s up: %v", side.name, err)
		}
	}
}

// LoopbackUDP opens a non-blocking IPv4 UDP socket bound to port on
// loopback, as wireguard-go's are, in the calling thread's namespace
// (call it inside NetNS.Do); port 0 picks one.
func LoopbackUDP(port int) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}
