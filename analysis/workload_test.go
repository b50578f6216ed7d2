package analysis

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// workloadRun is a run directory with an rr, a cbr and an objects flow.
func workloadRun(t *testing.T) fstest.MapFS {
	t.Helper()
	sum := results.Summary{Run: "kinds", Scenario: "throughput", Status: "ok", Flows: []results.FlowResult{
		{Name: "rr", Path: "dc", GoodputMbps: 0.01, Complete: true, FlowWorkload: results.FlowWorkload{Kind: "rr", Direction: "down"}},
		{Name: "voip", Path: "dc", GoodputMbps: 0.06, Complete: true, FlowWorkload: results.FlowWorkload{Kind: "cbr", Direction: "down"}},
		{Name: "web", Path: "link1", GoodputMbps: 4, Complete: true, FlowWorkload: results.FlowWorkload{Kind: "objects", Direction: "down",
			Objects: []results.ObjectResult{{Size: 500e3, FCTS: 0.7, Complete: true, Utilization: 0.11}, {Index: 1, Size: 100e6, FCTS: 20, Complete: true, Utilization: 0.8}}}},
	}}
	sb, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	var rr, cbr bytes.Buffer
	rw := results.NewRRWriter(&rr)
	for i := range 100 {
		rw.Write(results.RRRow{T: time.Duration(i) * 10 * time.Millisecond, Latency: time.Duration(20+i%7) * time.Millisecond})
	}
	rw.Flush()
	cw := results.NewCBRWriter(&cbr)
	for i := range 200 {
		d := 10 * time.Millisecond
		if i/100 == 1 {
			d = 30 * time.Millisecond // the second batch on the slow link
		}
		s := time.Duration(i) * 20 * time.Millisecond
		cw.Write(results.CBRPacket{Seq: uint32(i), Sent: s, Recv: s + d})
	}
	cw.Flush()
	return fstest.MapFS{
		"summary.json":       {Data: sb},
		"flows/rr.rr.csv":    {Data: rr.Bytes()},
		"flows/voip.cbr.csv": {Data: cbr.Bytes()},
		"flows/rr.csv":       {Data: []byte("t_s,bytes\n0.1,100\n")},
	}
}

func TestAnalyzeWorkloads(t *testing.T) {
	ra, err := AnalyzeRun(workloadRun(t), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ra.Workloads) != 3 {
		t.Fatalf("workloads %+v", ra.Workloads)
	}
	rr, voip := ra.Workloads[0], ra.Workloads[1]
	if rr.DelayStats == nil || rr.DelayStats.N != 100 || rr.DelayStats.P50 != 23 {
		t.Errorf("rr %+v", rr.DelayStats)
	}
	if voip.DelayStats == nil || voip.DelayStats.P50 != 10 || voip.DelayStats.P95 != 30 || *voip.Reordered != 0 || *voip.JitterMs <= 0 {
		t.Errorf("cbr %+v", voip.DelayStats)
	}
	var text bytes.Buffer
	WriteRun(&text, ra)
	for _, want := range []string{"   cbr      200", "objects of web:", "100000000"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("emu analyze text lacks %q:\n%s", want, text.String())
		}
	}
	figs, _, err := RunFigures(ra)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range figs {
		names[f.Name] = true
		var b bytes.Buffer
		if err := f.Render(&b, "svg"); err != nil || b.Len() == 0 {
			t.Errorf("figure %s: %v", f.Name, err)
		}
	}
	for _, n := range []string{"rr-latency-cdf", "cbr-owd-cdf", "fct-size-web"} {
		if !names[n] {
			t.Errorf("no figure %s among %v", n, names)
		}
	}
}
