package analysis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

// TestFlowControlFromSummary: a run whose summary.json has a direction's
// flow-control account (dc.fc=ddds) shows it in emu analyze's text, the
// report page and analysis.json; the fixture without one shows none of it.
func TestFlowControlFromSummary(t *testing.T) {
	dir := fixture(t, "run-fairness")
	sumPath := filepath.Join(dir, results.SummaryFile)
	raw, err := os.ReadFile(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	var sum map[string]any
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	down := sum["pdcp"].(map[string]any)["down"].(map[string]any)
	down["flow_control"] = map[string]any{
		"legs": []any{
			map[string]any{"link": "link1", "reports": 812, "reports_on_zero": 3, "stale_reports": 0, "credit_limited_s": 1.234, "desired_buffer_last": 256000},
			map[string]any{"link": "link2", "reports": 790, "reports_on_zero": 0, "stale_reports": 0, "credit_limited_s": 9.5, "desired_buffer_last": 64000},
		},
		"host_held": 1200, "host_dropped": 4,
		"host_wait_ms":          map[string]any{"n": 1200, "p50": 1.52, "p95": 12.04, "max": 40},
		"host_buffer_bytes_max": 1500000,
	}
	if err := results.WriteJSON(sumPath, sum); err != nil {
		t.Fatal(err)
	}
	ra, w, err := AnalyzeRunDir(dir, RunOptions{SkipQlog: true}, WriteOptions{NoPlot: true})
	if err != nil {
		t.Fatal(err)
	}
	lines := "  flow control: link1: 812 reports (3 at 0), credit-limited 1.23 s, last DBS 256.0 kB; link2: 790 reports (0 at 0), credit-limited 9.50 s, last DBS 64.0 kB\n" +
		"  flow control: host held 1200 SDUs (wait p50 1.5 ms, p95 12.0 ms), dropped 4 before an SN, buffer max 1.5 MB\n"
	var text strings.Builder
	WriteRun(&text, ra)
	if !strings.Contains(text.String(), "max buffer 57\n"+lines) {
		t.Errorf("text:\n%s\nwant after PDCP down's line:\n%s", text.String(), lines)
	}
	page, err := os.ReadFile(w.Report)
	if err != nil || !strings.Contains(string(page), "credit-limited 9.50 s") {
		t.Errorf("report %s: %v, no flow control", w.Report, err)
	}

	var out struct {
		PDCP map[string]struct {
			FlowControl *results.FlowControl `json:"flow_control"`
		} `json:"pdcp"`
	}
	if err := results.ReadJSON(os.DirFS(dir), results.AnalysisFile, &out); err != nil {
		t.Fatal(err)
	}
	fc := out.PDCP["down"].FlowControl
	if fc == nil || len(fc.Legs) != 2 || fc.Legs[1].Link != "link2" || fc.Legs[1].CreditLimitedS != 9.5 ||
		fc.HostDropped != 4 || fc.HostWaitMs["p95"] != 12.04 || fc.HostBufferBytesMax != 1500000 {
		t.Errorf("analysis.json's pdcp.down.flow_control: %+v", fc)
	}

	// Without flow control: no line, no key.
	plain := fairnessRun(t)
	text.Reset()
	WriteRun(&text, plain)
	if strings.Contains(text.String(), "flow control") {
		t.Errorf("a run without flow control:\n%s", text.String())
	}
	if b, err := json.Marshal(plain); err != nil || strings.Contains(string(b), "flow_control") {
		t.Errorf("analysis.json of a run without flow control has flow_control (%v)", err)
	}
}
