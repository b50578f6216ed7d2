package cli

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study"
	"github.com/dc-emu/emu/emu/sweep"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// TestSweepCSVAndAnalyzeCountTheSameRuns: sweep.csv (emu sweep, emu sweep
// merge) and emu analyze SWEEP come from one aggregation, so they count the
// same runs: here a sweep directory with a failed run, a run whose seed does
// not match the plan, and a missing run besides ok ones.
func TestSweepCSVAndAnalyzeCountTheSameRuns(t *testing.T) {
	dir := copyFixture(t, "sweep")
	// p01-r2 becomes a run of another plan (its seed does not match);
	// p01-r3 is missing and p02-r2 failed in the fixture already.
	sum, err := results.ReadSummary(filepath.Join(dir, "runs", "p01-r2"))
	if err != nil {
		t.Fatal(err)
	}
	sum.Seed = 4242
	if err := results.WriteJSON(filepath.Join(dir, "runs", "p01-r2", "summary.json"), sum); err != nil {
		t.Fatal(err)
	}
	if _, err := sweep.Finish(dir, sweep.AggregateOptions{Studies: study.All()}); err != nil {
		t.Fatal(err)
	}
	recs := sweeptest.ReadCSV(t, dir)
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	csvCounts := map[string][3]int{}
	for _, r := range recs[1:] {
		var c [3]int
		for i, k := range []string{"runs_ok", "runs_failed", "runs_missing"} {
			c[i], _ = strconv.Atoi(r[col[k]])
		}
		csvCounts[r[col["point"]]] = c
	}

	code, out, errs := runAnalyze(t, dir, "--json", "--no-plot")
	if code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, errs)
	}
	var an struct {
		Points []struct {
			ID      string `json:"id"`
			OK      int    `json:"runs_ok"`
			Failed  int    `json:"runs_failed"`
			Missing int    `json:"runs_missing"`
		} `json:"points"`
		Runs []struct {
			ID       string `json:"id"`
			Status   string `json:"status"`
			Included bool   `json:"included"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &an); err != nil {
		t.Fatalf("analyze --json: %v\n%s", err, out)
	}
	if len(an.Points) != len(csvCounts) {
		t.Fatalf("analyze has %d points, sweep.csv %d", len(an.Points), len(csvCounts))
	}
	for _, p := range an.Points {
		got := [3]int{p.OK, p.Failed, p.Missing}
		if got != csvCounts[p.ID] {
			t.Errorf("point %s: analyze counts ok/failed/missing %v, sweep.csv %v", p.ID, got, csvCounts[p.ID])
		}
	}
	want := map[string]string{"p01-r1": "ok", "p01-r2": "missing", "p01-r3": "missing", "p02-r1": "ok", "p02-r2": "failed", "p02-r3": "ok"}
	for _, r := range an.Runs {
		if r.Status != want[r.ID] || r.Included != (r.Status == "ok") {
			t.Errorf("run %s: status %s included %v, want %s", r.ID, r.Status, r.Included, want[r.ID])
		}
	}
	if c := csvCounts["p01"]; c != [3]int{1, 0, 2} {
		t.Errorf("p01 in sweep.csv: ok/failed/missing %v, want [1 0 2]", c)
	}
	if c := csvCounts["p02"]; c != [3]int{2, 1, 0} {
		t.Errorf("p02 in sweep.csv: ok/failed/missing %v, want [2 1 0]", c)
	}
}
