package dcproxy

import (
	"net/netip"
	"testing"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/gsofwd"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/pdcp"
)

// TestProxyCountsTUNDrops: a proxy's TUN holds gsofwd.TUNQueueLen packets for a
// reader that is late, and TUNDrops counts what arrives beyond them: the
// proxy here never reads, so of gsofwd.TUNQueueLen + 1000 datagrams sent into its
// TUN, about 1000 are dropped and counted.
func TestProxyCountsTUNDrops(t *testing.T) {
	emutest.RequireRoot(t)
	n := emutest.NewNetNS(t)
	peers := [2]netip.AddrPort{netip.MustParseAddrPort("10.99.1.1:2152"), netip.MustParseAddrPort("10.99.2.1:2152")}
	p, err := OpenProxy(int(n.NS), "pd", 1500, 2152, peers, ProxyConfig{
		SNBits: pdcp.SNBits18, Scheduler: pdcp.SchedulerConfig{Kind: pdcp.KindBatch}.WithDefaults(), TReordering: pdcp.DefaultTReordering,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	link, err := n.Handle.LinkByName("pd")
	if err != nil {
		t.Fatal(err)
	}
	if q := link.Attrs().TxQLen; q != gsofwd.TUNQueueLen {
		t.Errorf("TUN queue %d packets, want %d", q, gsofwd.TUNQueueLen)
	}
	addr, _ := netlink.ParseAddr("10.99.0.254/24")
	if err := n.Handle.AddrAdd(link, addr); err != nil {
		t.Fatal(err)
	}
	if err := n.Handle.LinkSetUp(link); err != nil {
		t.Fatal(err)
	}
	before, err := p.TUNDrops()
	if err != nil {
		t.Fatal(err)
	}
	const extra = 1000
	var sent int
	err = n.Do(func() error {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		to := &unix.SockaddrInet4{Port: 9, Addr: [4]byte{10, 99, 0, 1}}
		for range gsofwd.TUNQueueLen + extra {
			if err := unix.Sendto(fd, make([]byte, 64), 0, to); err == nil {
				sent++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	after, err := p.TUNDrops()
	if err != nil {
		t.Fatal(err)
	}
	dropped := int(after - before)
	t.Logf("sent %d datagrams into a TUN nobody reads: %d dropped", sent, dropped)
	// What the kernel sent of its own (an IPv6 router solicitation) may
	// take a place in the queue.
	if want := sent - gsofwd.TUNQueueLen; dropped < want || dropped > want+16 {
		t.Errorf("%d of %d datagrams dropped, want %d (what exceeds the queue of %d)", dropped, sent, want, gsofwd.TUNQueueLen)
	}
}
