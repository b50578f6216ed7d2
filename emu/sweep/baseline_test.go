package sweep

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
	"github.com/dc-emu/emu/internal/stats"
)

// baselineGridPlan is a grid in the multipath study's shape, smaller:
// link2's capacity and delay, and a mode axis whose baseline, the single
// path, resets link2 to link1's values, so its points are one.
func baselineGridPlan(t *testing.T, repeat int) *results.Plan {
	t.Helper()
	mode := Labeled("multipath",
		Value{"single", []string{"flow.path=link1", "flows.0.name=single", "link2.rate=20mbit", "link2.delay=10ms"}},
		Value{"mptcp", []string{"flow.path=mptcp", "flows.0.name=mptcp"}},
		Value{"dc", []string{"flow.path=dc", "flows.0.name=dc"}})
	mode.Baseline = "single"
	spec, err := Preset{Name: "baseline-grid", Scenario: "throughput",
		Settings: []string{"link.trace=none", "link.rate=20mbit", "link.delay=10ms", "flow.proto=tcp", "flow.cc=cubic", "flow.size=20MB"},
		Axes: []results.Axis{
			Labeled("capacity_ratio", Value{"1:1", []string{"link2.rate=20mbit"}}, Value{"2:1", []string{"link2.rate=10mbit"}}),
			Labeled("delay_ratio", Value{"1:1", []string{"link2.delay=10ms"}}, Value{"2:1", []string{"link2.delay=20ms"}}),
			mode},
		Grid: true, Repeat: repeat}.Spec()
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Points) != 2*2*2+1 {
		t.Fatalf("%d points, want the single path once and MPTCP and DC at 2 × 2", len(p.Points))
	}
	return p
}

// TestRelativeGoodput: each counted run's relative goodput is its goodput
// over the mean goodput of its baseline point's runs, in sweep.csv, and
// the heat map is drawn with a panel per multipath mode.
func TestRelativeGoodput(t *testing.T) {
	p := baselineGridPlan(t, 2)
	dir := prepared(t, p)
	f := &sweeptest.Runner{}
	if _, err := Execute(context.Background(), dir, p, Options{Runner: f.Run}); err != nil {
		t.Fatal(err)
	}
	tab, err := Aggregate(dir, p, AggregateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	goodput := map[string]float64{}
	byPoint := map[string][]float64{}
	for _, r := range tab.Runs {
		s, err := results.ReadSummary(filepath.Join(dir, results.RunsDir, r.ID))
		if err != nil {
			t.Fatal(err)
		}
		goodput[r.ID] = s.Flows[0].GoodputMbps
		byPoint[r.Point] = append(byPoint[r.Point], s.Flows[0].GoodputMbps)
	}
	for _, r := range tab.Runs {
		pt, _ := p.Point(r.Point)
		want := goodput[r.ID] / stats.MeanOmitNaN(byPoint[pt.Baseline])
		if got := r.Metrics[results.MetricRelativeGoodput]; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: relative goodput %v, want %v", r.ID, got, want)
		}
	}
	for _, row := range tab.Rows {
		if st := row.Stats[results.MetricRelativeGoodput]; st.N != 2 {
			t.Errorf("point %s: relative goodput of %d runs", row.ID, st.N)
		}
	}
	var csv strings.Builder
	if err := results.WriteSweepCSV(&csv, tab); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.SplitN(csv.String(), "\n", 2)[0], "relative_goodput_mean") {
		t.Error("sweep.csv has no relative_goodput column")
	}
	figs, err := Figures(tab, nil)
	if err != nil {
		t.Fatal(err)
	}
	var hm *Figure
	for i := range figs {
		if figs[i].Name == "relative-goodput-capacity_ratio-delay_ratio" {
			hm = &figs[i]
		}
	}
	if hm == nil || len(hm.PNG) == 0 || !strings.Contains(string(hm.SVG), "mptcp ÷ single") || !strings.Contains(string(hm.SVG), "dc ÷ single") {
		t.Fatal("no heat map of relative goodput with an MPTCP and a DC panel")
	}
	if dir := os.Getenv("EMU_FIGURE_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, hm.Name+".png"), hm.PNG, 0o644)
	}
}

// TestBaselineNeedsAGrid: a baseline must be one of the axis's values,
// only one axis may have one, and only in a grid.
func TestBaselineNeedsAGrid(t *testing.T) {
	a := axes(t, "dc.batch=25,100", "dc.split=1:1,2:1")
	for _, tc := range []struct {
		name     string
		baseline [2]string
		grid     bool
		want     string
	}{
		{"not a value", [2]string{"50", ""}, true, `baseline "50" is not one of its values`},
		{"two axes", [2]string{"25", "1:1"}, true, "both have a baseline"},
		{"not a grid", [2]string{"25", ""}, false, "the sweep must be a grid"},
	} {
		ax := []results.Axis{a[0], a[1]}
		ax[0].Baseline, ax[1].Baseline = tc.baseline[0], tc.baseline[1]
		_, err := NewPlan(Spec{Scenario: "throughput", Axes: ax, Grid: tc.grid, Repeat: 1})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestMPTCPUtilizationCountsBothLinks: an MPTCP flow's bottleneck is both
// downlinks, as a DC flow's.
func TestMPTCPUtilizationCountsBothLinks(t *testing.T) {
	s := &results.Summary{
		Flows: []results.FlowResult{{Name: "mp", Path: config.PathMPTCP, GoodputMbps: 30}},
		Links: []results.LinkResult{{Name: "link1", Dir: "down", CapacityMbps: 20}, {Name: "link2", Dir: "down", CapacityMbps: 20},
			{Name: "link1", Dir: "up", CapacityMbps: 20}},
	}
	if got := RunMetrics(s)[results.MetricUtilization]; got != 0.75 {
		t.Errorf("utilization %v, want 30 / (20 + 20) = 0.75", got)
	}
}
