package emu

import (
	"net/netip"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/topo"
)

// TestCompileFlows checks that compileFlows hands each flow's endpoints
// the values the keys set: the server's address and sizes, the client's
// implementation and size, an objects workload with its own seed.
func TestCompileFlows(t *testing.T) {
	cfg := testConfig(t, "flows.count=3", "flows.0.size=5MB", "flows.0.proto=tcp",
		"flows.2.kind=objects", "flows.2.objects=fixed:1MB", "flows.2.count=4")
	cfg.Seed = 7
	flows, err := compileFlows(&cfg, runFiles{out: "/r"})
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

// TestCompileFlowsNamesEveryFile: compileFlows alone names the files a
// flow's endpoints write, each where emu/results' layout puts it: key
// logs on both sides, qlogs for QUIC, the TCP_INFO log (with the epoch)
// for TCP, MPTCP included, the receive and per-kind logs on the side that
// receives, the one-way delay log on the reader of a stamped body; and
// the run's certificate and epoch.
func TestCompileFlowsNamesEveryFile(t *testing.T) {
	cfg := testConfig(t, "flows.count=5", "flows.0.proto=tcp", "flows.1.proto=quic",
		"flows.2.direction=up", "flows.3.kind=cbr", "flows.3.proto=udp", "flows.3.direction=up", "flows.3.count=10", "flows.4.kind=rr", "flows.4.count=10")
	epoch := time.Unix(1000, 0)
	rf := runFiles{out: "/r", cert: "/r/tls/cert.pem", certKey: "/r/tls/key.pem", epoch: epoch}
	flows, err := compileFlows(&cfg, rf)
	if err != nil {
		t.Fatal(err)
	}
	in := func(rel string) string { return results.RunDir("/r").File(rel) }
	n := func(i int) string { return cfg.Flows[i].Name }
	for i, fe := range flows {
		sc, cc := fe.server, fe.client
		if sc.CertFile != rf.cert || sc.KeyFile != rf.certKey || cc.CAFile != rf.cert || !cc.T0.Equal(epoch) {
			t.Errorf("flow %d: certificate %s %s, CA %s, T0 %v", i, sc.CertFile, sc.KeyFile, cc.CAFile, cc.T0)
		}
		if sc.KeyLogFile != in(results.KeyLogFile(n(i), "server")) || cc.KeyLogFile != in(results.KeyLogFile(n(i), "client")) {
			t.Errorf("flow %d: key logs %s %s", i, sc.KeyLogFile, cc.KeyLogFile)
		}
	}
	// A TCP download: TCP_INFO on the server, receive and one-way delay
	// logs on the client, no qlog.
	if sc, cc := flows[0].server, flows[0].client; sc.TCPInfoLog != in(results.TCPInfoFile(n(0))) || !sc.T0.Equal(epoch) ||
		cc.RecvLog != in(results.RecvLogFile(n(0))) || cc.OWDLog != in(results.OWDFile(n(0))) || sc.QlogFile != "" || cc.QlogFile != "" {
		t.Errorf("TCP download: server %+v, client %+v", sc, cc)
	}
	// A QUIC download: both qlogs, no TCP_INFO.
	if sc, cc := flows[1].server, flows[1].client; sc.QlogFile != in(results.QlogFile(n(1), "server")) ||
		cc.QlogFile != in(results.QlogFile(n(1), "client")) || sc.TCPInfoLog != "" {
		t.Errorf("QUIC download: server qlog %q, client qlog %q, TCP_INFO %q", sc.QlogFile, cc.QlogFile, sc.TCPInfoLog)
	}
	// A bulk upload: the server receives the stamped body and logs both.
	if sc, cc := flows[2].server, flows[2].client; sc.Work.RecvLog != in(results.RecvLogFile(n(2))) ||
		sc.Work.OWDLog != in(results.OWDFile(n(2))) || cc.RecvLog != "" || cc.OWDLog != "" {
		t.Errorf("bulk upload: server work %+v, client recv %q owd %q", sc.Work, cc.RecvLog, cc.OWDLog)
	}
	// An rr flow: the client keeps the per-kind log and receives; no
	// stamped body.
	if sc, cc := flows[4].server, flows[4].client; cc.Work.KindLog != in(results.KindLogFile(n(4), "rr")) ||
		cc.RecvLog != in(results.RecvLogFile(n(4))) || cc.OWDLog != "" || sc.Work.RecvLog != "" {
		t.Errorf("rr: server work %+v, client work %+v recv %q owd %q", sc.Work, cc.Work, cc.RecvLog, cc.OWDLog)
	}
	// A cbr upload: the server receives the datagrams and logs them.
	if sc, cc := flows[3].server, flows[3].client; sc.Work.KindLog != in(results.KindLogFile(n(3), "cbr")) ||
		sc.Work.RecvLog != in(results.RecvLogFile(n(3))) || cc.Work.KindLog != "" || cc.RecvLog != "" {
		t.Errorf("cbr upload: server work %+v, client work %+v recv %q", sc.Work, cc.Work, cc.RecvLog)
	}
}
