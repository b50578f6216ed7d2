package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/results"
)

// TestAnalyzeWritesEachCountedRun: emu analyze of a sweep writes the
// table to the sweep's analysis.json (or --out) and an analysis.json into
// each run that counts, none into the failed one.
func TestAnalyzeWritesEachCountedRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sweep")
	if err := os.CopyFS(dir, os.DirFS("../../analysis/testdata/sweep")); err != nil {
		t.Fatal(err)
	}
	tab, out, err := Analyze(dir, analysis.RunOptions{}, AggregateOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	sd := results.SweepDir(dir)
	if out != sd.File(results.AnalysisFile) || len(tab.Rows) != 2 {
		t.Fatalf("wrote %s, %d points", out, len(tab.Rows))
	}
	var back results.SweepTable
	if err := results.ReadJSON(os.DirFS(dir), results.AnalysisFile, &back); err != nil || len(back.Runs) != len(tab.Runs) {
		t.Fatalf("%s: %v, %d runs", out, err, len(back.Runs))
	}
	counted := 0
	for _, r := range tab.Runs {
		_, err := os.Stat(sd.Run(r.ID).File(results.AnalysisFile))
		switch {
		case r.Included && err != nil:
			t.Errorf("run %s counts but has no analysis: %v", r.ID, err)
		case !r.Included && !errors.Is(err, os.ErrNotExist):
			t.Errorf("run %s (%s) does not count but has an analysis: %v", r.ID, r.Status, err)
		}
		if r.Included {
			counted++
		}
		if _, ok := r.Metrics["pdcp.down.repairs"]; r.Included && !ok {
			t.Errorf("run %s lacks the analysis' metrics: %v", r.ID, r.Metrics)
		}
	}
	if counted != 4 {
		t.Errorf("%d runs counted, want 4", counted)
	}

	elsewhere := filepath.Join(t.TempDir(), "a.json")
	if _, out, err = Analyze(dir, analysis.RunOptions{SkipQlog: true}, AggregateOptions{}, elsewhere); err != nil || out != elsewhere {
		t.Fatalf("--out: wrote %s, %v", out, err)
	}
	if _, _, err := Analyze(t.TempDir(), analysis.RunOptions{}, AggregateOptions{}, ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a directory without plan.json: %v", err)
	}
}
