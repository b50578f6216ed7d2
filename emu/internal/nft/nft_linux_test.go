package nft_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/emu/internal/nfq/nfqtest"
	"github.com/dc-emu/emu/emu/internal/nft"
	"github.com/dc-emu/emu/internal/emutest"
)

func TestProbe(t *testing.T) {
	ns := emutest.NewNetNS(t)
	b, err := nft.Probe(int(ns.NS))
	if err != nil {
		t.Fatal(err)
	}
	if b == nft.BackendNone {
		t.Fatal("Probe found no backend without an error")
	}
	t.Logf("queue backend: %s", b)
}

func TestRefusesTheCurrentNamespace(t *testing.T) {
	if _, err := nft.Apply(0, "x", nil); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("Apply(0): %v, want a refusal", err)
	}
	if _, err := nft.Probe(0); err == nil {
		t.Error("Probe(0) succeeded")
	}
	if err := nft.Delete(0, "x"); err == nil {
		t.Error("Delete(0) succeeded")
	}
}

func TestValidation(t *testing.T) {
	ns := emutest.NewNetNS(t)
	bad := []nft.Chain{
		{Name: "", Hook: nft.Prerouting},
		{Name: "a", Hook: nft.Prerouting, Rules: []nft.QueueRule{{OIf: "eth0"}}},
		{Name: "a", Hook: nft.Hook(9)},
		{Name: "b", Rules: []nft.QueueRule{{IIf: "a-very-long-interface-name"}, {Proto: 6, NotProto: 6}, {Dst: []netip.Prefix{{}}}}},
	}
	_, err := nft.Apply(int(ns.NS), "t", bad)
	if err == nil {
		t.Fatal("invalid chains accepted")
	}
	for _, want := range []string{"empty name", "output interface", "duplicate name", "unknown hook", "longer than 15", "both required and excluded", "invalid destination"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// probeLine is the three-namespace line with queue 1 bound in B.
type probeLine struct {
	*nfqtest.Line
	q        *nfq.Queue
	udpToC   int // UDP socket in A connected to C
	udpToB   int // UDP socket in A connected to B's near address
	udpFromC int // UDP socket in C connected to A
}

func newProbeLine(t *testing.T) *probeLine {
	l := nfqtest.NewLine(t)
	q, err := nfq.Open(nfq.Config{NetNS: int(l.B.NS), Num: 1, CopyMode: nfq.CopyPacket})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	nfqtest.UDPSocket(t, l.C, 7000, netip.AddrPort{})
	nfqtest.UDPSocket(t, l.A, 7000, netip.AddrPort{})
	return &probeLine{
		Line:     l,
		q:        q,
		udpToC:   nfqtest.UDPSocket(t, l.A, 0, netip.AddrPortFrom(l.CAddr, 7000)),
		udpToB:   nfqtest.UDPSocket(t, l.A, 0, netip.MustParseAddrPort("10.77.1.2:7000")),
		udpFromC: nfqtest.UDPSocket(t, l.C, 0, netip.AddrPortFrom(l.AAddr, 7000)),
	}
}

// queued reports whether packets sent by send reach queue 1 (and accepts them).
func (p *probeLine) queued(t *testing.T, send func() error) bool {
	t.Helper()
	if err := send(); err != nil {
		t.Fatal(err)
	}
	pkts := make([]nfq.Packet, 8)
	n, err := p.q.Recv(pkts, time.Now().Add(150*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		p.q.AcceptUpTo(pkts[n-1].ID)
		p.q.Flush()
	}
	return n > 0
}

func TestQueueRuleMatches(t *testing.T) {
	p := newProbeLine(t)
	write := func(fd int) func() error {
		return func() error { _, err := unix.Write(fd, []byte("x")); return err }
	}
	tcpSyn := func() error {
		// A connection attempt from A to C sends a SYN whatever the answer.
		return p.A.Do(func() error {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
			if err != nil {
				return err
			}
			defer unix.Close(fd)
			err = unix.Connect(fd, &unix.SockaddrInet4{Port: 7001, Addr: p.CAddr.As4()})
			if err != nil && err != unix.EINPROGRESS {
				return err
			}
			time.Sleep(20 * time.Millisecond) // let the SYN leave before the close
			return nil
		})
	}
	cPrefix := netip.MustParsePrefix("10.77.2.0/24")
	cases := []struct {
		name  string
		chain nft.Chain
		send  func() error
		want  bool
	}{
		{"iif matches", pre(nft.QueueRule{IIf: p.BFromA}), write(p.udpToC), true},
		{"iif other side", pre(nft.QueueRule{IIf: p.BFromA}), write(p.udpFromC), false},
		{"proto udp", pre(nft.QueueRule{Proto: unix.IPPROTO_UDP}), write(p.udpToC), true},
		{"proto udp, tcp sent", pre(nft.QueueRule{Proto: unix.IPPROTO_UDP}), tcpSyn, false},
		{"not proto udp, tcp sent", pre(nft.QueueRule{IIf: p.BFromA, NotProto: unix.IPPROTO_UDP}), tcpSyn, true},
		{"not proto udp, udp sent", pre(nft.QueueRule{NotProto: unix.IPPROTO_UDP}), write(p.udpToC), false},
		{"dst in prefix", pre(nft.QueueRule{Dst: []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16"), cPrefix}}), write(p.udpToC), true},
		{"dst outside prefix", pre(nft.QueueRule{Dst: []netip.Prefix{cPrefix}}), write(p.udpToB), false},
		{"dst host prefix", pre(nft.QueueRule{Dst: []netip.Prefix{netip.PrefixFrom(p.CAddr, 32)}}), write(p.udpToC), true},
		{"v6 prefix never matches v4", pre(nft.QueueRule{Dst: []netip.Prefix{netip.MustParsePrefix("::/0")}}), write(p.udpToC), false},
		{"oif at forward", nft.Chain{Name: "fwd", Hook: nft.Forward, Rules: []nft.QueueRule{{OIf: p.BFromC, Queue: 1}}}, write(p.udpToC), true},
		{"oif other at forward", nft.Chain{Name: "fwd", Hook: nft.Forward, Rules: []nft.QueueRule{{OIf: p.BFromA, Queue: 1}}}, write(p.udpToC), false},
		{"postrouting", nft.Chain{Name: "post", Hook: nft.Postrouting, Rules: []nft.QueueRule{{Proto: unix.IPPROTO_UDP, Queue: 1}}}, write(p.udpToC), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := nft.Apply(int(p.B.NS), "emutest", []nft.Chain{c.chain}); err != nil {
				t.Fatal(err)
			}
			if got := p.queued(t, c.send); got != c.want {
				t.Errorf("queued %v, want %v", got, c.want)
			}
		})
	}
	if err := nft.Delete(int(p.B.NS), "emutest"); err != nil {
		t.Fatal(err)
	}
	if p.queued(t, write(p.udpToC)) {
		t.Error("a packet was queued after Delete")
	}
	if err := nft.Delete(int(p.B.NS), "emutest"); err != nil {
		t.Errorf("second Delete: %v", err)
	}
}

func pre(r nft.QueueRule) nft.Chain {
	r.Queue = 1
	return nft.Chain{Name: "pre", Hook: nft.Prerouting, Rules: []nft.QueueRule{r}}
}

// TestChainsRunInPriorityOrder: a packet queued at priority -300 and
// accepted from userspace continues to the chain at -150, where it is
// queued again, and only then goes on to its destination.
func TestChainsRunInPriorityOrder(t *testing.T) {
	l := nfqtest.NewLine(t)
	var qs [2]*nfq.Queue
	for i := range qs {
		q, err := nfq.Open(nfq.Config{NetNS: int(l.B.NS), Num: uint16(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Close() })
		qs[i] = q
	}
	// Listed in the opposite order: the priorities decide, not the order.
	chains := []nft.Chain{
		{Name: "second", Hook: nft.Prerouting, Priority: -150, Rules: []nft.QueueRule{{IIf: l.BFromA, Queue: 2}}},
		{Name: "first", Hook: nft.Prerouting, Priority: -300, Rules: []nft.QueueRule{{IIf: l.BFromA, Queue: 1}}},
	}
	if _, err := nft.Apply(int(l.B.NS), "emutest", chains); err != nil {
		t.Fatal(err)
	}
	rx := nfqtest.UDPSocket(t, l.C, 7000, netip.AddrPort{})
	tx := nfqtest.UDPSocket(t, l.A, 0, netip.AddrPortFrom(l.CAddr, 7000))
	unix.Write(tx, []byte("ordered"))
	pkts := make([]nfq.Packet, 4)
	recv := func(q *nfq.Queue, wait time.Duration) int {
		n, err := q.Recv(pkts, time.Now().Add(wait))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := recv(qs[1], 100*time.Millisecond); n != 0 {
		t.Fatal("the -150 chain saw the packet before the -300 chain let it go")
	}
	if n := recv(qs[0], 2*time.Second); n != 1 {
		t.Fatalf("queue 1 (priority -300) got %d packets, want 1", n)
	}
	qs[0].Accept(pkts[0].ID)
	qs[0].Flush()
	if n := recv(qs[1], 2*time.Second); n != 1 {
		t.Fatalf("queue 2 (priority -150) got %d packets after queue 1 accepted, want 1", n)
	}
	buf := make([]byte, 16)
	unix.SetNonblock(rx, true)
	if _, err := unix.Read(rx, buf); err != unix.EAGAIN {
		t.Fatalf("the packet arrived before the second chain's verdict (read: %v)", err)
	}
	qs[1].Accept(pkts[0].ID)
	qs[1].Flush()
	unix.SetNonblock(rx, false)
	tv := unix.NsecToTimeval(int64(2 * time.Second))
	unix.SetsockoptTimeval(rx, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	if n, err := nfqtest.Read(rx, buf); err != nil || string(buf[:n]) != "ordered" {
		t.Fatalf("receiver: %q, %v", buf[:n], err)
	}
}
