package nft_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/nfq/nfqtest"
	"github.com/dc-emu/emu/emu/internal/nft"
	"github.com/dc-emu/emu/internal/emutest"
)

// TestDupRuleCopies: a dup rule in B sends a copy of each matching packet
// from A to C's address out of B's interface towards C, so C receives the
// datagram twice; a rule whose mark the packets do not carry copies
// nothing.
func TestDupRuleCopies(t *testing.T) {
	l := nfqtest.NewLine(t)
	dev, err := l.B.Handle.LinkByName(l.BFromC)
	if err != nil {
		t.Fatal(err)
	}
	rx := nfqtest.UDPSocket(t, l.C, 7000, netip.AddrPort{})
	tx := nfqtest.UDPSocket(t, l.A, 0, netip.AddrPortFrom(l.CAddr, 7000))
	tv := unix.NsecToTimeval(int64(300 * time.Millisecond))
	if err := unix.SetsockoptTimeval(rx, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		t.Fatal(err)
	}
	copies := func(msg string) int {
		if _, err := unix.Write(tx, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		n := 0
		buf := make([]byte, 64)
		for {
			k, err := nfqtest.Read(rx, buf)
			if err != nil {
				return n // timed out: nothing more is coming
			}
			if string(buf[:k]) == msg {
				n++
			}
		}
	}
	rule := nft.DupRule{IIf: l.BFromA, Proto: unix.IPPROTO_UDP, To: l.CAddr, Dev: l.BFromC, DevIndex: dev.Attrs().Index}
	for _, c := range []struct {
		name string
		mark uint32
		want int
	}{{"any mark", 0, 2}, {"mark the packets lack", 7, 1}} {
		t.Run(c.name, func(t *testing.T) {
			r := rule
			r.Mark = c.mark
			if err := nft.ApplyDup(int(l.B.NS), "emutest-dup", nft.DupChain{Name: "dup", Hook: nft.Prerouting, Priority: -100, Rules: []nft.DupRule{r}}); err != nil {
				t.Fatal(err)
			}
			if got := copies(c.name); got != c.want {
				t.Errorf("C received %d copies, want %d", got, c.want)
			}
		})
	}
}

func TestDupValidation(t *testing.T) {
	ns := emutest.NewNetNS(t)
	bad := nft.DupChain{Name: "", Hook: nft.Hook(9), Rules: []nft.DupRule{
		{IIf: "a-very-long-interface-name", To: netip.MustParseAddr("10.0.0.1"), Dev: "l2", DevIndex: 3},
		{To: netip.MustParseAddr("fd00::1"), Dev: "l2", DevIndex: 3},
		{To: netip.MustParseAddr("10.0.0.1"), Dev: "l9"},
	}}
	err := nft.ApplyDup(int(ns.NS), "t", bad)
	if err == nil {
		t.Fatal("invalid dup chain accepted")
	}
	for _, want := range []string{"empty name", "unknown hook", "longer than 15", "not an IPv4 address", `device "l9" has no interface index`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if err := nft.ApplyDup(0, "t", nft.DupChain{Name: "dup"}); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("ApplyDup(0): %v, want a refusal", err)
	}
}
