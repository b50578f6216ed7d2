package emu

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runloop"
)

// TestDelaysFromTheLogs: what a run makes of its flows' logs, without
// root: rtt_ms from the TCP flow's TCP_INFO log, owd_ms from each client's
// log (the done line's when the log is missing), timeseries columns of
// per-bin means, and a warning for a damaged log.
func TestDelaysFromTheLogs(t *testing.T) {
	out := t.TempDir()
	if err := os.CopyFS(filepath.Join(out, "flows"), os.DirFS("../analysis/testdata/run-latency/flows")); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, "flows.count=2", "flows.1.path=link1", "flows.1.proto=tcp", "flow.size=0", "flow.duration=3s")
	r := &runner{em: &network.Emulation{Epoch: time.Now()}, cfg: cfg, o: RunOptions{Out: out}}
	if cfg.Flows[0].Name != "dc" || cfg.Flows[1].Name != "link1" {
		t.Fatalf("flows %s, %s", cfg.Flows[0].Name, cfg.Flows[1].Name)
	}
	rtt, owd := delaysOf(r, 1, nil)
	sum, err := results.ReadSummary("../analysis/testdata/run-latency")
	if err != nil {
		t.Fatal(err)
	}
	if rtt == nil || owd == nil || *rtt != *sum.Flows[1].RTTMs || *owd != *sum.Flows[1].OWDMs {
		t.Errorf("TCP flow: rtt %+v owd %+v, the run wrote %+v %+v", rtt, owd, sum.Flows[1].RTTMs, sum.Flows[1].OWDMs)
	}
	// The QUIC flow's qlog is not there: no RTT, and no warning for that.
	if rtt, owd := delaysOf(r, 0, nil); rtt != nil || owd == nil {
		t.Errorf("QUIC flow without qlog: rtt %+v owd %+v", rtt, owd)
	}
	if len(r.em.Warnings) != 0 {
		t.Errorf("warnings %q", r.em.Warnings)
	}
	tab := &results.SeriesTable{Header: []string{"t_s"}}
	for k := 1; k <= 40; k++ {
		tab.Rows = append(tab.Rows, []float64{float64(k) / 10})
	}
	rec := &record{cfg: cfg, flows: []flowRecord{{delays: r.readFlowDelays(0)}, {delays: r.readFlowDelays(1)}}}
	addDelayColumns(tab, rec)
	want := "t_s,flow.dc.rtt_ms,flow.dc.owd_ms,flow.link1.rtt_ms,flow.link1.owd_ms"
	if got := strings.Join(tab.Header, ","); got != want {
		t.Fatalf("header %s, want %s", got, want)
	}
	filled := 0
	for _, row := range tab.Rows {
		if len(row) != 5 || !math.IsNaN(row[1]) {
			t.Fatalf("row %v", row)
		}
		if !math.IsNaN(row[3]) {
			filled++
			if row[3] < 15 || row[3] > 300 {
				t.Errorf("bin mean RTT %v ms", row[3])
			}
		}
	}
	if filled < 15 {
		t.Errorf("%d of 40 bins have the TCP flow's RTT", filled)
	}

	// A damaged log is a warning, not a failed run; the done line still
	// gives the one-way delays.
	if err := os.WriteFile(filepath.Join(out, "flows", "link1.owd.csv"), []byte("t_s,offset,owd_ms\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = &runner{em: &network.Emulation{Epoch: time.Now()}, cfg: cfg, o: RunOptions{Out: out}}
	done := &results.DelayStats{P50: 1, P95: 2, P99: 3, Max: 4, Mean: 1.5, N: 7}
	_, owd = delaysOf(r, 1, doneWith(done))
	if owd == nil || *owd != *done {
		t.Errorf("owd %+v, want the done line's %+v", owd, done)
	}
	if len(r.em.Warnings) != 1 || !strings.Contains(r.em.Warnings[0], "link1.owd.csv:2") {
		t.Errorf("warnings %q", r.em.Warnings)
	}
}

// delaysOf is flow i's rtt_ms and owd_ms in the summary of a run whose
// logs r reads, with done as its client's done line (nil: none).
func delaysOf(r *runner, i int, done *endpoint.Event) (rtt, owd *results.DelayStats) {
	rec := &record{cfg: r.cfg, flows: make([]flowRecord, len(r.cfg.Flows))}
	rec.flows[i].delays = r.readFlowDelays(i)
	if done != nil {
		rec.flows[i].state.Done = &runloop.Done{Result: *done}
	}
	fr, _ := flowResult(rec, i)
	return fr.RTTMs, fr.OWDMs
}

func doneWith(owd *results.DelayStats) *endpoint.Event {
	return &endpoint.Event{Kind: endpoint.EventDone, OWD: owd}
}
