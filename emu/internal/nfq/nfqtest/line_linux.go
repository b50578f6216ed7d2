package nfqtest

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/emutest"
)

// Line is A —veth— B —veth— C. A and C route everything through B, which
// forwards IPv4. Queue rules go into B; its interface towards A is BFromA,
// towards C is BFromC.
type Line struct {
	A, B, C *emutest.NetNS
	// AAddr and CAddr are the end hosts' addresses.
	AAddr, CAddr netip.Addr
	// BFromA and BFromC are B's interface names, facing A and C.
	BFromA, BFromC string
}

// NewLine builds the line in fresh namespaces removed at the end of the test.
func NewLine(tb testing.TB) *Line {
	tb.Helper()
	l := &Line{
		A: emutest.NewNetNS(tb), B: emutest.NewNetNS(tb), C: emutest.NewNetNS(tb),
		AAddr: netip.MustParseAddr("10.77.1.1"), CAddr: netip.MustParseAddr("10.77.2.1"),
		BFromA: "b-a", BFromC: "b-c",
	}
	// No IPv6: router solicitations and the like would be queued along
	// with the test's packets and shift their ids and counts.
	for _, n := range []*emutest.NetNS{l.A, l.B, l.C} {
		if err := n.Do(func() error {
			for _, f := range []string{"all", "default"} {
				if err := os.WriteFile("/proc/sys/net/ipv6/conf/"+f+"/disable_ipv6", []byte("1"), 0o644); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			tb.Fatalf("nfqtest: disable IPv6: %v", err)
		}
	}
	steps := []struct {
		name string
		err  error
	}{
		{"veth A-B", l.veth(l.A, "a0", "10.77.1.1/24", l.BFromA, "10.77.1.2/24")},
		{"veth B-C", l.veth(l.C, "c0", "10.77.2.1/24", l.BFromC, "10.77.2.2/24")},
		{"route A", defaultRoute(l.A, "a0", "10.77.1.2")},
		{"route C", defaultRoute(l.C, "c0", "10.77.2.2")},
		{"forwarding in B", l.B.Do(func() error {
			return os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte("1"), 0o644)
		})},
	}
	for _, s := range steps {
		if s.err != nil {
			tb.Fatalf("nfqtest: %s: %v", s.name, s.err)
		}
	}
	// A packet sent before the carrier is up loses its ARP request, and
	// the retry comes a second later.
	for _, e := range []struct {
		n    *emutest.NetNS
		name string
	}{{l.A, "a0"}, {l.B, l.BFromA}, {l.B, l.BFromC}, {l.C, "c0"}} {
		emutest.WaitFor(tb, 5*time.Second, func() error {
			link, err := e.n.Handle.LinkByName(e.name)
			if err != nil {
				return err
			}
			if st := link.Attrs().OperState; st != netlink.OperUp {
				return fmt.Errorf("%s is %s", e.name, st)
			}
			return nil
		})
	}
	return l
}

// veth makes a pair between end (name endIf) and B (name bIf), both up.
func (l *Line) veth(end *emutest.NetNS, endIf, endAddr, bIf, bAddr string) error {
	v := &netlink.Veth{
		LinkAttrs:     netlink.LinkAttrs{Name: bIf, TxQLen: 1000},
		PeerName:      endIf,
		PeerNamespace: netlink.NsFd(int(end.NS)),
	}
	if err := l.B.Handle.LinkAdd(v); err != nil {
		return fmt.Errorf("add %s/%s: %w", bIf, endIf, err)
	}
	for _, s := range []struct {
		h          *netlink.Handle
		name, addr string
	}{{l.B.Handle, bIf, bAddr}, {end.Handle, endIf, endAddr}} {
		link, err := s.h.LinkByName(s.name)
		if err != nil {
			return fmt.Errorf("find %s: %w", s.name, err)
		}
		a, err := netlink.ParseAddr(s.addr)
		if err != nil {
			return err
		}
		if err := s.h.AddrAdd(link, a); err != nil {
			return fmt.Errorf("address %s on %s: %w", s.addr, s.name, err)
		}
		if err := s.h.LinkSetUp(link); err != nil {
			return fmt.Errorf("up %s: %w", s.name, err)
		}
	}
	return nil
}

func defaultRoute(n *emutest.NetNS, dev, gw string) error {
	link, err := n.Handle.LinkByName(dev)
	if err != nil {
		return err
	}
	return n.Handle.RouteAdd(&netlink.Route{LinkIndex: link.Attrs().Index, Gw: net.ParseIP(gw)})
}

// UDPSocket opens a raw-descriptor UDP socket inside n, bound to port
// (0: any) and, when to is valid, connected to it. Sending with unix.Write
// on it allocates nothing, which allocation tests need. It is closed when
// the test ends.
func UDPSocket(tb testing.TB, n *emutest.NetNS, port int, to netip.AddrPort) int {
	tb.Helper()
	fd := -1
	err := n.Do(func() error {
		var err error
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 4<<20); err != nil {
			return err
		}
		if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port}); err != nil {
			return err
		}
		if to.IsValid() {
			return unix.Connect(fd, &unix.SockaddrInet4{Port: int(to.Port()), Addr: to.Addr().As4()})
		}
		return nil
	})
	if err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		tb.Fatalf("nfqtest: udp socket: %v", err)
	}
	tb.Cleanup(func() { unix.Close(fd) })
	return fd
}

// Listen opens a Go listener ("tcp" or "udp") inside n on addr.
func Listen(tb testing.TB, n *emutest.NetNS, network, addr string) net.Listener {
	tb.Helper()
	return openIn(tb, n, "listen "+network+" "+addr, func() (net.Listener, error) {
		return net.Listen(network, addr)
	})
}

// Dial connects from inside n.
func Dial(tb testing.TB, n *emutest.NetNS, network, addr string) net.Conn {
	tb.Helper()
	return openIn(tb, n, "dial "+network+" "+addr, func() (net.Conn, error) {
		return net.Dial(network, addr)
	})
}

// ListenUDP opens a Go UDP socket inside n on addr.
func ListenUDP(tb testing.TB, n *emutest.NetNS, addr string) *net.UDPConn {
	tb.Helper()
	return openIn(tb, n, "listen udp "+addr, func() (*net.UDPConn, error) {
		a, err := net.ResolveUDPAddr("udp", addr)
		if err != nil {
			return nil, err
		}
		c, err := net.ListenUDP("udp", a)
		if err != nil {
			return nil, err
		}
		return c, c.SetReadBuffer(8 << 20)
	})
}

// openIn runs open inside n (sockets take the namespace they are made in)
// and closes what it opened when the test ends; what names it when it
// fails.
func openIn[C io.Closer](tb testing.TB, n *emutest.NetNS, what string, open func() (C, error)) C {
	tb.Helper()
	var c C
	if err := n.Do(func() (err error) {
		c, err = open()
		return err
	}); err != nil {
		tb.Fatalf("nfqtest: %s: %v", what, err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// Read reads a datagram from fd, again when a signal cut the wait short: a
// socket with SO_RCVTIMEO is not restarted after a signal, and the Go
// runtime signals its threads to preempt goroutines, so a bare read fails
// now and then with EINTR (a clean-clone CI run: "ping 113: interrupted
// system call").
func Read(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Read(fd, buf)
		if err != unix.EINTR {
			return n, err
		}
	}
}
