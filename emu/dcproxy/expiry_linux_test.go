package dcproxy

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/pdcp"
)

// TestProxyExpiresAGap sends a running proxy, over UDP in a namespace of
// its own, PDUs with COUNTs 0 and 2 (1 lost), then 3: the receiver
// delivers 0 at once and holds 2 and 3 until t-Reordering (50 ms) gives
// 1 up. The timer goroutine sleeps until the receiver's deadline and is
// woken only when a deadline comes sooner, so this is what shows that a
// gap is still given up without further traffic.
func TestProxyExpiresAGap(t *testing.T) {
	n := emutest.NewNetNS(t)
	peers := [2]netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:9"), netip.MustParseAddrPort("127.0.0.1:9")}
	const tReordering = 50 * time.Millisecond
	p, err := OpenProxy(int(n.NS), "pd", 1500, 2152, peers, ProxyConfig{
		SNBits: pdcp.SNBits18, Scheduler: pdcp.SchedulerConfig{Kind: pdcp.KindBatch}.WithDefaults(), TReordering: tReordering,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()

	var fd int
	err = n.Do(func() error {
		lo, err := n.Handle.LinkByName("lo")
		if err == nil {
			err = n.Handle.LinkSetUp(lo)
		}
		if err == nil {
			fd, err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	to := &unix.SockaddrInet4{Port: 2152, Addr: [4]byte{127, 0, 0, 1}}
	send := func(sn uint32) {
		hl := pdcp.HeaderLen(pdcp.SNBits18)
		pdu := make([]byte, hl+40)
		pdcp.PutHeader(pdu, sn, pdcp.SNBits18)
		pdu[hl] = 0x45 // an IPv4 header, enough for the receiver
		if err := unix.Sendto(fd, pdu, 0, to); err != nil {
			t.Fatalf("send COUNT %d: %v", sn, err)
		}
	}
	send(0)
	send(2)
	time.Sleep(5 * time.Millisecond)
	send(3)
	start := time.Now()
	var c ProxyCounters
	for time.Since(start) < 5*time.Second {
		c, _ = p.Snapshot()
		if c.Rx.GivenUp > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("after %v: %+v", time.Since(start).Round(time.Millisecond), c.Rx)
	if c.Rx.Received != 3 || c.Rx.GivenUp != 1 || c.Rx.DeliveredOnExpiry != 2 || c.Rx.DeliveredInOrder != 1 {
		t.Errorf("received %d, given up %d, delivered %d in order and %d on expiry; want 3, 1, 1 and 2", c.Rx.Received, c.Rx.GivenUp, c.Rx.DeliveredInOrder, c.Rx.DeliveredOnExpiry)
	}
}
