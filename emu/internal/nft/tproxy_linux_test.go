package nft_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/internal/nft"
	"github.com/dc-emu/emu/internal/emutest"
)

// TestTProxyRulesInstall: the kernel takes the socket and tproxy rules
// (emu/network's PEP tests carry connections through them), and an invalid
// chain is refused naming every problem.
func TestTProxyRulesInstall(t *testing.T) {
	ns := emutest.NewNetNS(t)
	ok := nft.TProxyChain{Name: "pep", Priority: -200, Proxy: nft.TProxy{
		IIfs: []string{"l1", "l2"}, Dst: netip.MustParseAddr("10.0.0.1"), Port: 7470, Mark: 0x70}}
	if err := nft.ApplyTProxy(int(ns.NS), "emu-pep", ok); err != nil {
		t.Fatal(err)
	}
	bad := nft.TProxyChain{Proxy: nft.TProxy{IIfs: []string{"a-very-long-interface-name"}, Dst: netip.MustParseAddr("fd00::1")}}
	err := nft.ApplyTProxy(int(ns.NS), "emu-pep", bad)
	if err == nil {
		t.Fatal("invalid tproxy chain accepted")
	}
	for _, want := range []string{"empty name", "longer than 15", "not an IPv4 address", "no proxy port", "no mark"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if err := nft.ApplyTProxy(0, "t", ok); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("ApplyTProxy(0): %v, want a refusal", err)
	}
}
