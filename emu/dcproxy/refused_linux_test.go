package dcproxy

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/pdcp"
)

// refusalRig is a running proxy in a namespace of its own, its peers and
// a sender of PDUs on loopback.
type refusalRig struct {
	n      *emutest.NetNS
	p      *Proxy
	fd     int // sends PDUs to the proxy
	next   uint32
	cancel func() error // stops the proxy, returns Run's error
}

// newRefusalRig starts a proxy "pd" on port 2152 of a new namespace's
// loopback, whose links' peers are a socket of the rig (the proxy's TUN
// sends the kernel's packets there once up). Its TUN is left down.
func newRefusalRig(t *testing.T) *refusalRig {
	t.Helper()
	emutest.RequireRoot(t)
	r := &refusalRig{n: emutest.NewNetNS(t)}
	var sink int
	err := r.n.Do(func() error {
		lo, err := r.n.Handle.LinkByName("lo")
		if err == nil {
			err = r.n.Handle.LinkSetUp(lo)
		}
		if err == nil {
			sink, err = emutest.LoopbackUDP(2153)
		}
		if err == nil {
			r.fd, err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(sink); unix.Close(r.fd) })
	peer := netip.MustParseAddrPort("127.0.0.1:2153")
	r.p, err = OpenProxy(int(r.n.NS), "pd", 1500, 2152, [2]netip.AddrPort{peer, peer}, ProxyConfig{
		SNBits: pdcp.SNBits18, Scheduler: pdcp.SchedulerConfig{Kind: pdcp.KindBatch}.WithDefaults(), TReordering: pdcp.DefaultTReordering,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.p.Run(ctx) }()
	r.cancel = sync.OnceValue(func() error { cancel(); return <-done })
	t.Cleanup(func() {
		if err := r.cancel(); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return r
}

// send sends the proxy the PDU of the next COUNT: an ICMP echo request
// from 10.99.0.2 to 10.99.0.1, a packet the kernel takes from a TUN that
// is up (and drops, having no route for it).
func (r *refusalRig) send(t *testing.T) {
	t.Helper()
	if err := r.sendNext(); err != nil {
		t.Fatal(err)
	}
}

func (r *refusalRig) sendNext() error {
	hl := pdcp.HeaderLen(pdcp.SNBits18)
	pdu := make([]byte, hl+28)
	pdcp.PutHeader(pdu, r.next, pdcp.SNBits18)
	ip := pdu[hl:]
	ip[0], ip[8], ip[9] = 0x45, 64, unix.IPPROTO_ICMP
	binary.BigEndian.PutUint16(ip[2:], uint16(len(ip)))
	copy(ip[12:], []byte{10, 99, 0, 2, 10, 99, 0, 1})
	binary.BigEndian.PutUint16(ip[10:], checksum(ip[:20]))
	ip[20] = 8 // echo request
	binary.BigEndian.PutUint16(ip[22:], checksum(ip[20:]))
	if err := unix.Sendto(r.fd, pdu, 0, &unix.SockaddrInet4{Port: 2152, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fmt.Errorf("send COUNT %d: %w", r.next, err)
	}
	r.next++
	return nil
}

// written waits until the proxy has made writes TUN writes, and returns
// its counters.
func (r *refusalRig) written(t *testing.T, writes uint64) ProxyCounters {
	t.Helper()
	var c ProxyCounters
	emutest.WaitFor(t, 10*time.Second, func() error {
		if c, _ = r.p.Snapshot(); c.Writes < writes {
			return fmt.Errorf("%d TUN writes, want %d", c.Writes, writes)
		}
		return nil
	})
	if c.Writes != writes {
		t.Fatalf("%d TUN writes, want %d", c.Writes, writes)
	}
	return c
}

// checksum is the Internet checksum of b.
func checksum(b []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		s += uint32(b[len(b)-1]) << 8
	}
	for s > 0xffff {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}

// TestProxyCountsRefusedWrites: the kernel refuses a write to a TUN that
// is down with EIO (drivers/net/tun.c, tun_get_user). Before Up such a
// write is counted apart (RefusedBeforeUp): the other proxy's first packet
// can arrive before this device is up (gws's IPv6 router solicitation
// reached gwc's TUN still down in 1 of 5 runs of TestProxyTCP, issue 48).
// Once up, a write refused because the device went down in the run is a
// loss, counted as Refused with its errno and error text.
func TestProxyCountsRefusedWrites(t *testing.T) {
	r := newRefusalRig(t)
	check := func(what string, c ProxyCounters, refused, beforeUp uint64, errno map[string]uint64) {
		t.Helper()
		if c.Refused != refused || c.RefusedBeforeUp != beforeUp || len(c.RefusedErrno) != len(errno) {
			t.Fatalf("%s: refused %d (%v, first %q), before up %d; want %d (%v) and %d", what, c.Refused, c.RefusedErrno, c.FirstRefusal, c.RefusedBeforeUp, refused, errno, beforeUp)
		}
		for k, v := range errno {
			if c.RefusedErrno[k] != v {
				t.Fatalf("%s: refused by errno %v, want %v", what, c.RefusedErrno, errno)
			}
		}
	}

	r.send(t)
	check("a write before Up", r.written(t, 1), 0, 1, nil)
	if err := r.p.Up(); err != nil {
		t.Fatal(err)
	}
	r.send(t)
	check("a write once up", r.written(t, 2), 0, 1, nil)

	link, err := r.n.Handle.LinkByName("pd")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.n.Handle.LinkSetDown(link); err != nil {
		t.Fatal(err)
	}
	r.send(t)
	c := r.written(t, 3)
	check("a write with the device set down in the run", c, 1, 1, map[string]uint64{"EIO": 1})
	if !strings.Contains(c.FirstRefusal, unix.EIO.Error()) {
		t.Errorf("first refusal %q, want the kernel's %q", c.FirstRefusal, unix.EIO.Error())
	}
	if err := r.n.Handle.LinkSetUp(link); err != nil {
		t.Fatal(err)
	}
	r.send(t)
	check("a write with the device up again", r.written(t, 4), 1, 1, map[string]uint64{"EIO": 1})

	if err := r.cancel(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	c = r.p.Counters()
	check("after Run", c, 1, 1, map[string]uint64{"EIO": 1})
	if c.Rx.Delivered != 4 {
		t.Errorf("receiver delivered %d SDUs, want 4: %+v", c.Rx.Delivered, c.Rx)
	}
}

// TestProxyStopsWithoutRefusals stops a proxy while a peer still sends it
// PDUs as fast as it can: Run closes the device only once the loops that
// write to it are done with it, so a clean shutdown refuses nothing (a
// write the close overtakes fails as closed, not refused by the kernel).
func TestProxyStopsWithoutRefusals(t *testing.T) {
	r := newRefusalRig(t)
	if err := r.p.Up(); err != nil {
		t.Fatal(err)
	}
	const before = 1000 // TUN writes before the stop
	stop, sent := make(chan struct{}), make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				sent <- nil
				return
			default:
				if err := r.sendNext(); err != nil {
					sent <- err
					return
				}
			}
		}
	}()
	emutest.WaitFor(t, 30*time.Second, func() error {
		if c, _ := r.p.Snapshot(); c.Writes < before {
			return fmt.Errorf("%d TUN writes, want %d", c.Writes, before)
		}
		return nil
	})
	err := r.cancel() // the peer still sends
	close(stop)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	c := r.p.Counters()
	t.Logf("sent %d PDUs; %d reads, %d TUN writes, receiver %+v", r.next, c.Reads, c.Writes, c.Rx)
	if c.Refused != 0 || c.RefusedBeforeUp != 0 {
		t.Errorf("a clean shutdown refused %d TUN writes (%v, first %q), %d before up; want none", c.Refused, c.RefusedErrno, c.FirstRefusal, c.RefusedBeforeUp)
	}
	if c.Writes < before {
		t.Errorf("%d TUN writes, want at least %d", c.Writes, before)
	}
}
