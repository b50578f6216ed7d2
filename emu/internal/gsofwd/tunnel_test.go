package gsofwd

import (
	"net/netip"
	"testing"
)

func TestTunnelRulesRefused(t *testing.T) {
	var tn Tunnels
	for _, r := range []Tunnel{
		{Prefix: netip.MustParsePrefix("fd00::/64"), Link: 0},
		{Prefix: netip.MustParsePrefix("10.2.1.0/24"), Link: 2},
		{Link: 0},
	} {
		if err := tn.Set([]Tunnel{r}); err == nil {
			t.Errorf("tunnel %+v accepted", r)
		}
	}
	if err := tn.Set([]Tunnel{{Prefix: netip.MustParsePrefix("10.2.1.7/24"), Link: 1}}); err != nil {
		t.Fatal(err)
	}
	pkt := make([]byte, 20)
	pkt[0] = 0x45
	copy(pkt[16:], []byte{10, 2, 1, 200})
	if l, ok := tn.Link(pkt); !ok || l != 1 {
		t.Errorf("10.2.1.200 in 10.2.1.7/24: link %d, %v", l, ok)
	}
	copy(pkt[16:], []byte{10, 2, 2, 200})
	if _, ok := tn.Link(pkt); ok {
		t.Errorf("10.2.2.200 matched 10.2.1.0/24")
	}
}
