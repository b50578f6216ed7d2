package emu

import (
	"net/netip"
	"testing"

	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/topo"
)

// TestCompileFlows checks that compileFlows hands each flow's endpoints
// the values the keys set: the server's address and sizes, the client's
// implementation and size, an objects workload with its own seed.
func TestCompileFlows(t *testing.T) {
	cfg := testConfig(t, "flows.count=3", "flows.0.size=5MB", "flows.0.proto=tcp",
		"flows.2.kind=objects", "flows.2.objects=fixed:1MB", "flows.2.count=4")
	cfg.Seed = 7
	flows, err := compileFlows(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sc, cc := flows[0].server, flows[0].client; sc.Proto != "tcp" || sc.Listen != netip.AddrPortFrom(topo.ServerAddr, 8443).String() ||
		len(sc.Sizes) != 1 || sc.Sizes[0] != 5e6 || cc.Size != 5e6 || cc.Impl != endpoint.ImplGo {
		t.Errorf("flow 0: server %+v client %+v", sc, cc)
	}
	if w := flows[2].client.Work; w.Kind != endpoint.KindObjects || w.Objects != "fixed:1MB" || w.Count != 4 || w.Seed == 0 || flows[2].client.Size != 0 {
		t.Errorf("flow 2's workload: %+v", w)
	}
}
