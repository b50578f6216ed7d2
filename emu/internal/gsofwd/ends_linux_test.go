package gsofwd

import (
	"net/netip"
	"sync"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestEndsFindTheirOwnSocket opens Ends in two namespaces at once, both
// on the same UDP port as two runs of one process do (emu sweep --jobs),
// twenty times: each Ends' receiver reads the socket of its own namespace,
// never the other's. Found by what an Open added to the descriptor table,
// a proxy took the other run's socket or none in 5 of 12 two-job sweeps.
func TestEndsFindTheirOwnSocket(t *testing.T) {
	nss := [2]*emutest.NetNS{emutest.NewNetNS(t), emutest.NewNetNS(t)}
	var want [2]uint64
	for i, n := range nss {
		if err := n.Do(func() (err error) { want[i], err = threadNetnsCookie(); return }); err != nil {
			t.Fatal(err)
		}
	}
	if want[0] == want[1] {
		t.Fatalf("two namespaces with one cookie %d", want[0])
	}
	peers := []netip.AddrPort{netip.MustParseAddrPort("192.0.2.1:2152")}
	for round := range 20 {
		var ends [2]Ends
		var errs [2]error
		var wg sync.WaitGroup
		for i, n := range nss {
			wg.Go(func() { ends[i], errs[i] = OpenEnds(int(n.NS), "probe", 1500, 2152, peers) })
		}
		wg.Wait()
		for i := range ends {
			if errs[i] != nil {
				t.Fatalf("round %d, namespace %d: %v", round, i, errs[i])
			}
			got, err := netnsCookie(int(ends[i].UDP.File().Fd()))
			if err != nil {
				t.Fatal(err)
			}
			if got != want[i] {
				t.Errorf("round %d: namespace %d's ends read a socket of namespace cookie %d, want %d", round, i, got, want[i])
			}
		}
		for i := range ends {
			ends[i].Close()
		}
	}
}
