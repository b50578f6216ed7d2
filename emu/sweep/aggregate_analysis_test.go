package sweep

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/stats"
)

// TestAggregateWithAnalysis aggregates analysis/testdata/sweep as emu
// analyze does, adding each counted run's analysis metrics: the failed and
// the missing run are listed and left out, and the points' statistics are
// over the runs that count.
func TestAggregateWithAnalysis(t *testing.T) {
	const dir = "../../analysis/testdata/sweep"
	p, err := results.ReadPlan(dir)
	if err != nil {
		t.Fatal(err)
	}
	extra := func(runDir string, _ *results.Summary) (map[string]float64, error) {
		ra, err := analysis.AnalyzeRun(os.DirFS(runDir), analysis.RunOptions{})
		if err != nil {
			return nil, err
		}
		return analysis.RunMetrics(ra), nil
	}
	tab, err := Aggregate(dir, p, AggregateOptions{Extra: extra})
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 2 || len(tab.Runs) != 6 || len(tab.Vary) != 1 || tab.Vary[0] != "dc.batch" {
		t.Fatalf("points %d runs %d vary %v", len(tab.Rows), len(tab.Runs), tab.Vary)
	}
	status := map[string]string{}
	for _, r := range tab.Runs {
		status[r.ID] = r.Status
		if r.Included != (r.Status == results.StatusOK) {
			t.Errorf("run %s status %s included %v", r.ID, r.Status, r.Included)
		}
	}
	if status["p01-r3"] != results.StatusMissing || status["p02-r2"] != results.StatusFailed || status["p01-r1"] != results.StatusOK {
		t.Errorf("statuses %v", status)
	}
	p1, p2 := tab.Rows[0], tab.Rows[1]
	g1, g2 := p1.Stats["flow.dc.goodput_mbps"], p2.Stats["flow.dc.goodput_mbps"]
	want1 := results.Stat(stats.Summarize([]float64{14.1, 14.9}))
	if p1.OK != 2 || g1 != want1 || math.Abs(g1.Mean-14.5) > 1e-12 {
		t.Errorf("p01 goodput %+v over %d runs, want %+v", g1, p1.OK, want1)
	}
	if p2.OK != 2 || math.Abs(g2.Mean-16.6) > 1e-12 || g2.N != 2 {
		t.Errorf("p02 goodput %+v (the failed run must be left out)", g2)
	}
	// t(0.975, 1) = 12.7062047: with two runs the interval is wide.
	if math.Abs(g1.CI95-12.7062047*math.Sqrt(0.32)/math.Sqrt(2)) > 1e-6 {
		t.Errorf("p01 CI95 %v", g1.CI95)
	}
	if r := p2.Stats["pdcp.down.repairs"]; r.Mean != (160+180)/2.0 {
		t.Errorf("p02 repairs %+v", r)
	}
	for _, m := range []string{"jfi", "link.down.utilization", "link1.down.utilization", "total.goodput_mbps"} {
		if _, ok := p1.Stats[m]; !ok {
			t.Errorf("p01 lacks metric %s (has %v)", m, tab.Metrics)
		}
	}
	if _, err := json.Marshal(tab); err != nil {
		t.Fatal(err)
	}
}
