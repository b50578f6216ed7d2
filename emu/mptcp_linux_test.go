package emu

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runstate"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// mptcpFrameHeader is the header bytes of a frame of an MPTCP data
// segment on a link: Ethernet 14, IPv4 20, TCP 20 with 40 bytes of
// options (timestamps 12 and a DSS option of 28 with a 64-bit data ACK and
// mapping), as tshark shows them.
const mptcpFrameHeader = 14 + 20 + 20 + 40

// mptcpConfig is one MPTCP download over two constant links.
func mptcpConfig(t *testing.T, kv ...string) config.Config {
	return testConfig(t, append([]string{"flows.0.path=mptcp", "flows.0.name=mp", "flow.proto=tcp", "flow.cc=cubic"}, kv...)...)
}

// TestRunMPTCPTwoSubflows runs an MPTCP download through the emulation:
// the connection gets a subflow over each link, both carry data, the
// summary, the terminal summary and timeseries.csv have them, and the
// subflows' bytes match what each link's rate limiter sent. How the
// scheduler shares the bytes is TestFidelityRunMPTCPTwoSubflows'.
func TestRunMPTCPTwoSubflows(t *testing.T) {
	emutest.RequireMPTCP(t)
	emutest.Exclusive(t)
	const size = 4e6
	f, out := runMPTCP(t, size)
	var b strings.Builder
	results.WriteReport(&b, f.sum, out)
	t.Log(b.String())
	if !strings.Contains(b.String(), "MPTCP mp: 2 subflows") {
		t.Error("the terminal summary does not show the subflows")
	}
	var counters results.Counters
	if err := results.ReadJSON(os.DirFS(out), results.CountersFile, &counters); err != nil {
		t.Fatal(err)
	}
	clients := topo.ClientAddrs(topo.PathMPTCP)
	for i, sf := range f.Subflows {
		link := []string{"link1", "link2"}[i]
		if sf.Link != link || !strings.HasPrefix(sf.Remote, clients[i].String()+":") || sf.CC != "cubic" {
			t.Errorf("subflow %d: link %s, client %s, cc %s; want %s from %s, cubic", sf.ID, sf.Link, sf.Remote, sf.CC, link, clients[i])
		}
		if sf.BytesAcked <= 0 || sf.BytesSent < sf.BytesAcked || sf.SRTTMs.N == 0 || sf.MaxCwndBytes <= 0 || sf.Share <= 0 || sf.Share >= 1 {
			t.Errorf("subflow %d over %s: %+v", sf.ID, sf.Link, sf)
		}
		// Every byte the subflow had acknowledged passed the link's rate
		// limiter, and every byte that passed it the subflow sent
		// (tcpi_bytes_sent counts retransmissions, which any kernel may
		// make, spurious ones too, on veth as anywhere; reinjected data
		// is the carrying subflow's own). The headers are estimated
		// (measured: within 0.9 %).
		q := counters.Links[link+".down"].Qdisc
		if q == nil {
			t.Fatalf("no rate-limiter counters of %s.down", link)
		}
		payload := float64(q.Bytes) - float64(q.Packets)*mptcpFrameHeader
		if payload < 0.97*float64(sf.BytesAcked) || payload > 1.03*float64(sf.BytesSent) {
			t.Errorf("%s carried %.0f payload bytes (%d B in %d frames), its subflow had %d acknowledged and sent %d (%d retransmitted): want between 0.97 × acknowledged and 1.03 × sent",
				link, payload, q.Bytes, q.Packets, sf.BytesAcked, sf.BytesSent, sf.BytesRetrans)
		}
	}
	// The subflows' last TCP_INFO sample may come before the last
	// acknowledgements: a fresh-clone CI run read 3,982,675 bytes
	// acknowledged of 4,000,000 received. What the sampler saw is at least
	// half of it; that it saw all is TestFidelityRunMPTCPTwoSubflows'.
	if f.SubflowTotals.BytesAcked < f.Bytes/2 || f.SubflowTotals.BytesSent < f.SubflowTotals.BytesAcked {
		t.Errorf("subflows acknowledged %d bytes and sent %d, the client received %d: want at least half of it acknowledged, at most what was sent", f.SubflowTotals.BytesAcked, f.SubflowTotals.BytesSent, f.Bytes)
	}
	ts, err := os.ReadFile(filepath.Join(out, "timeseries.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"flow.mp.sf1.mbps", "flow.mp.sf2.srtt_ms", "flow.mp.sf2.cwnd_bytes", "flow.mp.sf1.retrans"} {
		if !strings.Contains(strings.SplitN(string(ts), "\n", 2)[0], col) {
			t.Errorf("timeseries.csv has no column %s", col)
		}
	}
}

// TestFidelityRunMPTCPTwoSubflows: over two equal links each subflow of a
// 10 MB MPTCP download carries between a fifth and four fifths of the
// bytes, and the subflows' TCP_INFO has them all acknowledged. The scheduler splits by the round trips and windows it measures,
// which a late sender or reader skews.
func TestFidelityRunMPTCPTwoSubflows(t *testing.T) {
	emutest.RequireMPTCP(t)
	h := emutest.Fidelity(t)
	f, _ := runMPTCP(t, 10e6)
	var missed []string
	for _, sf := range f.Subflows {
		if sf.Share < 0.2 || sf.Share > 0.8 {
			missed = append(missed, fmt.Sprintf("subflow %d over %s carried %.2f of the bytes, want 0.2–0.8", sf.ID, sf.Link, sf.Share))
		}
	}
	// The sampler's last reading comes within a sampling interval of the
	// end, so it has all of a 10 MB download's bytes acknowledged when it
	// keeps time.
	if f.SubflowTotals.BytesAcked < f.Bytes {
		missed = append(missed, fmt.Sprintf("subflows acknowledged %d bytes, the client received %d", f.SubflowTotals.BytesAcked, f.Bytes))
	}
	h.Check(t, missed)
}

// mptcpRun is the flow of an MPTCP run, with its summary.
type mptcpRun struct {
	results.FlowResult
	sum *results.Summary
}

// runMPTCP runs an MPTCP download of size bytes over two constant links,
// checks that it completed over two subflows and left nothing, and
// returns its flow and run directory.
func runMPTCP(t *testing.T, size int64) (mptcpRun, string) {
	t.Helper()
	cfg := mptcpConfig(t, fmt.Sprintf("flow.size=%d", size))
	out := t.TempDir()
	id := runstate.NewRunID()
	sum, err := Run(context.Background(), cfg, RunOptions{Out: out, Binary: emuBinary(t), ID: id})
	if err != nil {
		t.Fatal(err)
	}
	noLeftovers(t, id)
	f := sum.Flows[0]
	if !f.Complete || f.Bytes != size {
		t.Fatalf("flow %+v", f)
	}
	if len(f.Subflows) != 2 || f.SubflowTotals == nil || f.SubflowTotals.Subflows != 2 {
		t.Fatalf("subflows %+v, totals %+v; want two", f.Subflows, f.SubflowTotals)
	}
	for _, sf := range f.Subflows {
		t.Logf("subflow %d over %s: %.2f of the bytes", sf.ID, sf.Link, sf.Share)
	}
	return mptcpRun{f, sum}, out
}

// TestRunMPTCPFallbackFails: with MPTCP disabled in the client's
// namespace its socket is plain TCP, so the download would measure
// single-path TCP; the run fails and says so, naming the flow and why.
func TestRunMPTCPFallbackFails(t *testing.T) {
	emutest.RequireMPTCP(t)
	emutest.Exclusive(t)
	cfg := mptcpConfig(t, "flow.size=2MB")
	id := runstate.NewRunID()
	em, err := network.Start(context.Background(), cfg, network.Options{ID: id, Command: "run"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { em.Close() })
	cli, err := em.Net.Node(topo.ClientNode(topo.PathMPTCP))
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.Do(func() error { return os.WriteFile("/proc/sys/net/mptcp/enabled", []byte("0"), 0) }); err != nil {
		t.Fatal(err)
	}
	sum, err := RunFlows(context.Background(), em, RunOptions{Out: t.TempDir(), Binary: emuBinary(t)})
	if err == nil {
		t.Fatal("the run succeeded over a connection that fell back to plain TCP")
	}
	t.Logf("run error: %v", err)
	for _, want := range []string{"flow mp", "MPTCP fell back to plain TCP", "net.mptcp.enabled"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q", want)
		}
	}
	if sum == nil || sum.Status != results.StatusFailed || sum.Flows[0].Complete || !strings.Contains(sum.Flows[0].Error, "fell back") {
		t.Errorf("summary %+v", sum)
	}
	if err := em.Close(); err != nil {
		t.Error(err)
	}
	noLeftovers(t, id)
}

// TestMPTCPSchedulerTheKernelLacks fails at start, naming the key and
// what the kernel offers, and leaves nothing.
func TestMPTCPSchedulerTheKernelLacks(t *testing.T) {
	emutest.RequireMPTCP(t)
	cfg := mptcpConfig(t, "mptcp.scheduler=nosuch")
	id := runstate.NewRunID()
	em, err := network.Start(context.Background(), cfg, network.Options{ID: id, Command: "run"})
	if err == nil {
		em.Close()
		t.Fatal("started with a scheduler the kernel does not have")
	}
	t.Logf("start: %v", err)
	if !strings.Contains(err.Error(), "mptcp.scheduler=nosuch: this kernel offers") {
		t.Errorf("error %q does not name the key and the kernel's schedulers", err)
	}
	noLeftovers(t, id)
}

// TestFairnessTopologyWithMPTCP: an MPTCP client in the fairness
// scenario gets its node beside the single-link clients it competes with.
func TestFairnessTopologyWithMPTCP(t *testing.T) {
	cfg, err := config.Resolve("fairness", settings(t, "flows.0.path=mptcp", "flows.0.proto=tcp"))
	if err != nil {
		t.Fatal(err)
	}
	spec := network.TopologyOf(cfg, "t1")
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"cmp", "cli1", "cli2"} {
		if _, ok := spec.Node(n); !ok {
			t.Errorf("fairness topology with an MPTCP flow has no node %s", n)
		}
	}
	if got := spec.Addrs("cmp"); len(got) != 2 {
		t.Errorf("cmp has addresses %v, want one per link", got)
	}
}
