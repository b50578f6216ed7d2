package topo

import (
	"fmt"
	"testing"
)

// TestLinkSubnets: the clients bound to one link are the single-link
// clients and both of the MPTCP client's subnets, each with its link and
// in the order the plan gives them; the DC client and absent paths are
// not among them.
func TestLinkSubnets(t *testing.T) {
	got := fmt.Sprint(LinkSubnets([]string{PathMPTCP, PathDC, PathLink2}))
	want := "[{link2 10.2.2.0/24 1} {mptcp 10.2.3.0/24 0} {mptcp 10.2.4.0/24 1}]"
	if got != want {
		t.Errorf("LinkSubnets = %s, want %s", got, want)
	}
	if s := LinkSubnets([]string{PathDC}); len(s) != 0 {
		t.Errorf("a DC client alone: %v", s)
	}
	// Each subnet is the one the topology routes over that link.
	s := DC("x", DCOptions{Paths: []string{PathLink1, PathLink2, PathMPTCP}, Uplink: PathLink1})
	for _, b := range LinkSubnets([]string{PathLink1, PathLink2, PathMPTCP}) {
		dev := fmt.Sprintf("l%d", b.Link+1)
		found := false
		for _, n := range s.Nodes {
			for _, r := range n.Routes {
				if n.Name == "gws" && r.Dst == b.Prefix && r.Dev == dev && r.Table == 0 {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("gws routes %v not over %s", b.Prefix, dev)
		}
	}
}
