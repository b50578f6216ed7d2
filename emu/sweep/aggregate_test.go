package sweep

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// independentStats computes mean, sample standard deviation and the 95 %
// half-width by the formulas of metrics.md §5, with its t table, without
// using the code under test.
func independentStats(xs []float64) (mean, sd, ci float64) {
	tTable := map[int]float64{1: 12.7062047, 2: 4.30265273, 3: 3.18244631, 4: 2.77644511} // t(0.975, df), exact to 9 digits
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd = math.Sqrt(ss / float64(len(xs)-1))
	return mean, sd, tTable[len(xs)-1] * sd / math.Sqrt(float64(len(xs)))
}

// sweep.csv's numbers are the statistics of the runs' own summary.json
// files: read those back, recompute, compare.
func TestCSVMatchesTheRunSummaries(t *testing.T) {
	p := testPlan(t, Spec{Scenario: "fairness", Axes: axes(t, "dc.batch=25,100,500", "link.bw_ratio=3:1"), Repeat: 4})
	dir := prepared(t, p)
	// One run of batch 500 fails: n drops to 3 there and its numbers stay
	// out.
	f := &sweeptest.Runner{}
	runner := func(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
		s, err := f.Run(ctx, cfg, out)
		if filepath.Base(out) == "p03-r2" {
			rewriteSummary(t, filepath.Dir(filepath.Dir(out)), "p03-r2", func(s *results.Summary) { s.Status = results.StatusFailed })
			s.Status = results.StatusFailed
		}
		return s, err
	}
	if _, err := Execute(context.Background(), dir, p, Options{Runner: runner}); err != nil {
		t.Fatal(err)
	}
	if _, err := Finish(dir, AggregateOptions{}); err != nil {
		t.Fatal(err)
	}
	rows := sweeptest.ReadCSV(t, dir)
	header := rows[0]
	col := func(name string) int { return sweeptest.Column(t, header, name) }
	wantHeader := []string{"point", "dc.batch", "link.bw_ratio", "runs_ok", "runs_failed", "runs_missing", "runs_degraded",
		"total.goodput_mbps_mean", "total.goodput_mbps_sd", "total.goodput_mbps_ci95", "total.goodput_mbps_n",
		"flow.dc.goodput_mbps_mean"}
	if !slices.Equal(header[:len(wantHeader)], wantHeader) {
		t.Errorf("header starts %v, want %v", header[:len(wantHeader)], wantHeader)
	}
	if len(rows) != 1+len(p.Points) {
		t.Fatalf("%d rows for %d points", len(rows)-1, len(p.Points))
	}
	checked := 0
	for _, row := range rows[1:] {
		id := row[0]
		// Gather the point's metrics from the summaries on disk.
		vals := map[string][]float64{}
		ok, failed := 0, 0
		for _, r := range p.Runs {
			if r.Point != id {
				continue
			}
			s, err := results.ReadSummary(filepath.Join(dir, results.RunsDir, r.ID))
			if err != nil {
				t.Fatal(err)
			}
			if s.Status != results.StatusOK {
				failed++
				continue
			}
			ok++
			total, capacity := 0.0, 0.0
			for _, fl := range s.Flows {
				vals["flow."+fl.Name+".goodput_mbps"] = append(vals["flow."+fl.Name+".goodput_mbps"], fl.GoodputMbps)
				total += fl.GoodputMbps
			}
			for _, l := range s.Links {
				if l.Dir == "down" {
					capacity += l.CapacityMbps // fairness: flows on dc, link1, link2 use both links
				}
			}
			vals["total.goodput_mbps"] = append(vals["total.goodput_mbps"], total)
			vals["jfi"] = append(vals["jfi"], s.JFI)
			vals["utilization"] = append(vals["utilization"], total/capacity)
		}
		if got := row[col("runs_ok")] + "/" + row[col("runs_failed")]; got != strconv.Itoa(ok)+"/"+strconv.Itoa(failed) {
			t.Errorf("%s: runs ok/failed %s, summaries say %d/%d", id, got, ok, failed)
		}
		for metric, xs := range vals {
			mean, sd, ci := independentStats(xs)
			for _, c := range []struct {
				suffix string
				want   float64
			}{{"_mean", mean}, {"_sd", sd}, {"_ci95", ci}, {"_n", float64(len(xs))}} {
				cell := row[col(metric+c.suffix)]
				got, err := strconv.ParseFloat(cell, 64)
				if err != nil || math.Abs(got-c.want) > 1e-5*math.Max(1, math.Abs(c.want)) {
					t.Errorf("%s %s%s = %q, want %.6g", id, metric, c.suffix, cell, c.want)
				}
				checked++
			}
		}
	}
	// 4 points × 6 metrics (total, dc, link1, link2, jfi, utilization) × 4 numbers.
	if checked != 4*6*4 {
		t.Errorf("checked %d numbers", checked)
	}
	// The batch-500 point lost a run.
	for _, row := range rows[1:] {
		if row[col("dc.batch")] == "500" && row[col("jfi_n")] != "3" {
			t.Errorf("batch 500: jfi_n = %s, want 3", row[col("jfi_n")])
		}
		if row[col("dc.batch")] == "100" && row[col("link.bw_ratio")] != "1:1" && row[col("link.bw_ratio")] != "3:1" {
			t.Errorf("bw_ratio column %q", row[col("link.bw_ratio")])
		}
	}
}

func TestRunMetrics(t *testing.T) {
	s := &results.Summary{
		Config: map[string]string{"dc.enabled": "true"},
		Flows: []results.FlowResult{
			{Name: "dc", Path: "dc", GoodputMbps: 30},
			{Name: "link2", Path: "link2", GoodputMbps: 6},
		},
		JFI: 0.7,
		Links: []results.LinkResult{
			{Name: "link1", Dir: "down", CapacityMbps: 20}, {Name: "link1", Dir: "up", CapacityMbps: 20},
			{Name: "link2", Dir: "down", CapacityMbps: 20}, {Name: "link2", Dir: "up", CapacityMbps: 20},
		},
	}
	m := RunMetrics(s)
	if m[results.MetricGoodput] != 36 || m["flow.dc.goodput_mbps"] != 30 || m[results.MetricJFI] != 0.7 || m[results.MetricUtilization] != 36.0/40 {
		t.Errorf("metrics %v", m)
	}
	// A single-link path (satellite): the bottleneck is that link alone.
	s.Flows = []results.FlowResult{{Name: "dc", Path: "dc", GoodputMbps: 10}}
	s.Config["dc.enabled"] = "false"
	s.Links[0].CapacityMbps = 50
	if u := RunMetrics(s)[results.MetricUtilization]; u != 0.2 {
		t.Errorf("utilization over link1 alone = %v, want 10/50", u)
	}
	if m := RunMetrics(&results.Summary{}); !math.IsNaN(m[results.MetricGoodput]) || !math.IsNaN(m[results.MetricUtilization]) {
		t.Errorf("no flows: %v", m)
	}
}
