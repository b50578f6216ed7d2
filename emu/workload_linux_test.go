package emu

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runstate"
	"github.com/dc-emu/emu/internal/emutest"
)

// runKinds runs cfg's settings through a real emulation and returns its
// summary and run directory.
func runKinds(t *testing.T, kv ...string) (*results.Summary, string) {
	t.Helper()
	cfg := testConfig(t, kv...)
	out := t.TempDir()
	id := runstate.NewRunID()
	sum, err := Run(context.Background(), cfg, RunOptions{Out: out, Binary: emuBinary(t), ID: id})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	noLeftovers(t, id)
	return sum, out
}

// TestRunKinds runs one flow of every kind at once over the DC path
// (through both PDCP proxies) and a TCP upload with the uplink split, and
// checks what each kind's summary entry, log and time-series column say.
// Propagation bounds a delay below whatever the machine does; above, the
// bounds are ten times the figures' (TestFidelityRunKinds').
func TestRunKinds(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	sum, out := runKinds(t, allKinds...)
	byName := map[string]results.FlowResult{}
	for _, f := range sum.Flows {
		byName[f.Name] = f
		if !f.Complete || f.Error != "" {
			t.Errorf("flow %s (%s): complete %v, error %q", f.Name, f.Kind, f.Complete, f.Error)
		}
	}
	if f := byName["down"]; f.Kind != "bulk" || f.Direction != "down" || f.Bytes != 2e6 {
		t.Errorf("download: %+v", f)
	}
	if f := byName["up"]; f.Kind != "bulk" || f.Direction != "up" || f.Bytes != 2e6 || f.GoodputMbps <= 0 || f.OWDMs == nil {
		t.Errorf("upload: %+v", f)
	}
	if f := byName["rr"]; f.Transactions != 20 || f.LatencyMs == nil || f.LatencyMs.P50 < 19 || f.LatencyMs.P50 > 3000 { // beside bulk flows: queueing (the idle figure is a measurement)
		t.Errorf("rr over 2 × 10 ms: %+v (latency %+v)", f, f.LatencyMs)
	}
	for _, name := range []string{"voip", "voip-up"} {
		f := byName[name]
		if f.Sent == nil || f.Received == nil || f.OWDMs == nil || f.OWDMs.P50 < 9.5 || f.OWDMs.P50 > 2000 || f.Loss == nil || f.JitterMs == nil {
			t.Errorf("cbr %s over 10 ms: %+v (owd %+v)", name, f, f.OWDMs)
			continue
		}
		if *f.Received < *f.Sent/2 {
			t.Errorf("cbr %s: received %d of %d datagrams (loss %.4f), want nearly all", name, *f.Received, *f.Sent, *f.Loss)
		}
		if f.Reordered == nil || *f.Reordered != 0 {
			t.Errorf("cbr %s: %v reordered datagrams after PDCP", name, f.Reordered)
		}
	}
	web := byName["web"]
	if len(web.Objects) != 3 || web.FCTS == nil || web.Resume == nil || web.Resume.ZeroRTT != 3 {
		t.Fatalf("objects: %+v (resume %+v)", web, web.Resume)
	}
	for _, o := range web.Objects {
		if !o.Complete || o.FCTS < 0.02 || o.Utilization <= 0 || o.Utilization > 1 || !o.ZeroRTT {
			t.Errorf("object %+v", o)
		}
	}
	if sum.PDCP["up"].Delivered == 0 || sum.PDCP["up"].TxLink2 == 0 {
		t.Errorf("split uplink: PDCP up %+v", sum.PDCP["up"])
	}
	tf, err := os.Open(filepath.Join(out, "timeseries.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	ts, err := results.ReadTimeseries(tf, "timeseries.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"flow.rr.latency_ms", "flow.voip.owd_ms", "flow.up.goodput_mbps", "flow.voip-up.owd_ms"} {
		if ts.Column(col) == nil {
			t.Errorf("timeseries.csv has no %s: %s", col, strings.Join(ts.Columns, ","))
		}
	}
	var report strings.Builder
	results.WriteReport(&report, sum, out)
	t.Log(report.String())
}

// allKinds are TestRunKinds' flows: a download, a TCP upload, TCP
// request-response, cbr both ways and objects resumed with 0-RTT.
var allKinds = []string{"link.jitter=0", "dc.uplink=split", "flows.count=6",
	"flows.0.name=down", "flows.0.size=2MB",
	"flows.1.name=up", "flows.1.proto=tcp", "flows.1.direction=up", "flows.1.size=2MB",
	"flows.2.name=rr", "flows.2.kind=rr", "flows.2.count=20", "flows.2.proto=tcp",
	"flows.3.name=voip", "flows.3.kind=cbr", "flows.3.count=100",
	"flows.4.name=web", "flows.4.kind=objects", "flows.4.objects=50kB,200kB,1MB", "flows.4.reuse=false", "flows.4.resume=0rtt",
	"flows.5.name=voip-up", "flows.5.kind=cbr", "flows.5.direction=up", "flows.5.count=50", "flows.5.packet=200",
}

// TestFidelityRunKinds: in TestRunKinds' run the request-response
// latency stays at most 300 ms and the cbr flows' one-way delay at most
// 200 ms beside the bulk flows (the shared PDCP entity holds datagrams
// behind the other flows' packets and the queues hold them behind the
// bulk flows, so only a loose bound is fair), and no cbr datagram is lost
// where nothing was set to lose it (one lost is a proxy or receiver late
// to read its queue).
func TestFidelityRunKinds(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	sum, _ := runKinds(t, allKinds...)
	var missed []string
	for _, f := range sum.Flows {
		if f.Name == "rr" && f.LatencyMs != nil && f.LatencyMs.P50 > 300 {
			missed = append(missed, fmt.Sprintf("rr over 2 × 10 ms beside bulk flows: p50 latency %.1f ms, want ≤ 300", f.LatencyMs.P50))
		}
		if f.Kind != "cbr" || f.Sent == nil || f.Received == nil || f.OWDMs == nil || f.Loss == nil {
			continue
		}
		if *f.Received != *f.Sent || *f.Loss != 0 {
			missed = append(missed, fmt.Sprintf("cbr %s: received %d of %d datagrams (loss %.4f), want all", f.Name, *f.Received, *f.Sent, *f.Loss))
		}
		if f.OWDMs.P50 > 200 {
			missed = append(missed, fmt.Sprintf("cbr %s over 10 ms: p50 one-way delay %.1f ms, want ≤ 200", f.Name, f.OWDMs.P50))
		}
	}
	h.Check(t, missed)
}

// TestRunSteering gives one of two cbr flows over DC its own PDCP entity
// pinned to link2 (active-standby, 30 ms) while the other keeps the
// client's entity and batch 10 over links of 10 and 30 ms: the steered
// flow's datagrams all take 30 ms, the other's alternate, and both arrive
// in order, on both PDCP data paths. That all arrive, and the pinned
// flow's delay to 3 ms, are TestFidelityRunSteering's.
func TestRunSteering(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	sum, out := runSteering(t)
	for _, f := range sum.Flows {
		// No loss is set: a loss is a late reader's.
		if *f.Received < 100 {
			t.Errorf("flow %s received %d of 200 datagrams, want nearly all", f.Name, *f.Received)
		}
	}
	pinned, batch := sum.Flows[1].OWDMs, sum.Flows[0].OWDMs
	if pinned.P50 < 29 || pinned.P50 > 300 {
		t.Errorf("the flow pinned to link2 (30 ms): owd %+v, p50 not the link's delay", pinned)
	}
	// Not one datagram took the 10 ms link (a loaded machine may delay
	// some beyond 30 ms, never below).
	pkts, err := results.ReadCBRFile(filepath.Join(out, "flows", "pinned.cbr.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkts {
		if d := p.Recv - p.Sent; d < 29*time.Millisecond {
			t.Errorf("datagram %d of the pinned flow took %v", p.Seq, d)
		}
	}
	if batch.P50 > 20 && batch.P95 < 29 {
		t.Errorf("the batch flow does not use both links: owd %+v", batch)
	}
	if d := sum.PDCP["down"]; d.TxLink2 == 0 || d.Delivered == 0 {
		t.Errorf("PDCP down sent %d on link2 and delivered %d", d.TxLink2, d.Delivered)
	}
}

// TestFidelityRunSteering: in TestRunSteering's runs every datagram
// arrives (no loss is set: one lost is a late reader's), the pinned flow's
// median one-way delay is link2's 30 ms within 3 ms, and the PDCP counters
// (published every 50 ms: a late publisher leaves the last of them out)
// count the datagrams.
func TestFidelityRunSteering(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	sum, _ := runSteering(t)
	var missed []string
	for _, f := range sum.Flows {
		if *f.Received != 200 {
			missed = append(missed, fmt.Sprintf("flow %s received %d of 200 datagrams", f.Name, *f.Received))
		}
	}
	if pinned := sum.Flows[1].OWDMs; pinned.P50 > 33 {
		missed = append(missed, fmt.Sprintf("the flow pinned to link2 (30 ms): p50 one-way delay %.2f ms, want ≤ 33", pinned.P50))
	}
	if d := sum.PDCP["down"]; d.TxLink2 < 200 || d.Delivered < 350 {
		missed = append(missed, fmt.Sprintf("PDCP down sent %d on link2 (want ≥ 200) and delivered %d (want ≥ 350)", d.TxLink2, d.Delivered))
	}
	h.Check(t, missed)
}

// runSteering runs TestRunSteering's flows and returns the
// summary, whose flows have their counts and delays, and the run
// directory.
func runSteering(t *testing.T) (*results.Summary, string) {
	t.Helper()
	sum, out := runKinds(t, "link.jitter=0", "link1.delay=10ms", "link2.delay=30ms", "dc.batch=10", "flows.count=2",
		"flow.kind=cbr", "flow.count=200", "flow.interval=5ms",
		"flows.0.name=batch", "flows.1.name=pinned", "flows.1.scheduler=active-standby", "flows.1.active=link2")
	for _, f := range sum.Flows {
		if f.Received == nil || f.Reordered == nil || *f.Reordered != 0 || f.OWDMs == nil {
			t.Fatalf("flow %s: %+v", f.Name, f)
		}
		t.Logf("%s: received %d; owd p50 %.2f p95 %.2f max %.2f ms", f.Name, *f.Received, f.OWDMs.P50, f.OWDMs.P95, f.OWDMs.Max)
	}
	t.Logf("PDCP down: %d on link2, %d delivered", sum.PDCP["down"].TxLink2, sum.PDCP["down"].Delivered)
	return sum, out
}

// TestRunSteeringDuplicate duplicates one cbr flow's datagrams (its own
// scheduler) beside one on batch, with 5 % loss on each link: the copies
// are the steered flow's alone, so its loss is about 5 %² and the other's
// about 5 %, on both PDCP data paths. Too little loss, or more duplicates
// than datagrams, is emu's: the machine can only add loss (a late
// reader), which also leaves fewer copies to discard; the figures to a
// few per cent are TestFidelityRunSteeringDuplicate's.
func TestRunSteeringDuplicate(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	sum := runSteeringDuplicate(t)
	batch, dup := *sum.Flows[0].Loss, *sum.Flows[1].Loss
	if batch < 0.02 || batch > 0.25 {
		t.Errorf("batch flow loss %.4f, want about 0.05 (0.02 to 0.25)", batch)
	}
	if dup > 0.025 {
		t.Errorf("duplicated flow loss %.4f, want about 0.0025 (well under half the links' 0.05)", dup)
	}
	if d := sum.PDCP["down"]; d.DuplicatesDiscarded > 1000 || d.DuplicatesDiscarded < 160 {
		t.Errorf("%d duplicates discarded of 1000 datagrams, want about 1000 × 0.95² (160 to 1000)", d.DuplicatesDiscarded)
	}
}

// TestFidelityRunSteeringDuplicate: in TestRunSteeringDuplicate's runs
// the batch flow loses at most 9 %, the duplicated one at most 1.2 %, and
// at least 800 of the 1000 datagrams' copies are discarded.
func TestFidelityRunSteeringDuplicate(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	sum := runSteeringDuplicate(t)
	batch, dup := *sum.Flows[0].Loss, *sum.Flows[1].Loss
	var missed []string
	if batch > 0.09 {
		missed = append(missed, fmt.Sprintf("batch flow loss %.4f, want about 0.05 (≤ 0.09)", batch))
	}
	if dup > 0.012 {
		missed = append(missed, fmt.Sprintf("duplicated flow loss %.4f, want about 0.0025 (≤ 0.012)", dup))
	}
	if d := sum.PDCP["down"]; d.DuplicatesDiscarded < 800 {
		missed = append(missed, fmt.Sprintf("%d duplicates discarded, want about 1000 × 0.95² (≥ 800)", d.DuplicatesDiscarded))
	}
	h.Check(t, missed)
}

// runSteeringDuplicate runs TestRunSteeringDuplicate's flows
// and returns the summary, whose flows have their loss.
func runSteeringDuplicate(t *testing.T) *results.Summary {
	t.Helper()
	sum, _ := runKinds(t, "link.jitter=0", "link.down.loss=5%", "flows.count=2",
		"flow.kind=cbr", "flow.count=1000", "flow.interval=2ms",
		"flows.0.name=batch", "flows.1.name=dup", "flows.1.scheduler=duplicate")
	batch, dup := sum.Flows[0], sum.Flows[1]
	if batch.Loss == nil || dup.Loss == nil {
		t.Fatalf("flows %+v %+v", batch, dup)
	}
	t.Logf("loss: batch %.4f, duplicated %.4f; PDCP down %+v", *batch.Loss, *dup.Loss, sum.PDCP["down"])
	return sum
}
