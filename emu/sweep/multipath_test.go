package sweep

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
	"github.com/dc-emu/emu/internal/stats"
)

// multipathPoints is the multipath-grid preset's number of points: MPTCP
// and DC at each of 4 × 4 grid points, and the single path once.
const multipathPoints = 4*4*2 + 1

func multipathPlan(t *testing.T, repeat int) *results.Plan {
	t.Helper()
	spec := namedPresetSpec(t, "multipath-grid")
	spec.Repeat = repeat
	p, err := NewPlan(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMultipathGridPlan: every MPTCP and DC point of the grid is compared
// to the one single-path point, whose labels on the link2 axes are *;
// link2 and the DC split follow the grid, link1 stays.
func TestMultipathGridPlan(t *testing.T) {
	p := multipathPlan(t, 1)
	if len(p.Points) != multipathPoints {
		t.Fatalf("%d points, want %d", len(p.Points), multipathPoints)
	}
	var single *results.Point
	for i := range p.Points {
		if p.Points[i].Labels[MultipathAxis] == "single" {
			if single != nil {
				t.Fatalf("two single-path points: %s and %s", single.ID, p.Points[i].ID)
			}
			single = &p.Points[i]
		}
	}
	if single == nil || single.Baseline != single.ID || single.Labels["capacity_ratio"] != AnyLabel || single.Labels["delay_ratio"] != AnyLabel {
		t.Fatalf("single-path point %+v", single)
	}
	if c := pointConfig(t, p, single.ID); c.Flows[0].Path != config.PathLink1 || c.Links[1].Down.Rate != 20e6 {
		t.Errorf("single path: path %s, link2 %v bit/s", c.Flows[0].Path, c.Links[1].Down.Rate)
	}
	for _, pt := range p.Points {
		c := pointConfig(t, p, pt.ID)
		if c.Links[0].Down.Rate != 20e6 || c.Links[0].Down.Delay.Milliseconds() != 10 || c.Flows[0].Proto != "tcp" || c.Flows[0].CC != "cubic" {
			t.Errorf("%s: link1 %v bit/s %v, flow %+v", pt.ID, c.Links[0].Down.Rate, c.Links[0].Down.Delay, c.Flows[0])
		}
		if pt.ID == single.ID {
			continue
		}
		if pt.Baseline != single.ID {
			t.Errorf("%s (%v): baseline %q, want %s", pt.ID, pt.Labels, pt.Baseline, single.ID)
		}
		r, d := ratioOf(t, pt.Labels["capacity_ratio"]), ratioOf(t, pt.Labels["delay_ratio"])
		if got := c.Links[1].Down.Rate; math.Abs(got-20e6/r) > 1 {
			t.Errorf("%s: link2 rate %v, want %v", pt.ID, got, 20e6/r)
		}
		if got := c.Links[1].Up.Delay.Milliseconds(); got != int64(10*d) {
			t.Errorf("%s: link2 delay %d ms, want %v", pt.ID, got, 10*d)
		}
		if c.Flows[0].Path != pt.Labels[MultipathAxis] || c.Flows[0].Name != pt.Labels[MultipathAxis] {
			t.Errorf("%s: flow %s on %s", pt.ID, c.Flows[0].Name, c.Flows[0].Path)
		}
		if c.Flows[0].Path == config.PathDC && c.DC.Sched.Split.String() != pt.Labels["capacity_ratio"] {
			t.Errorf("%s: DC split %s, want the capacity ratio %s", pt.ID, c.DC.Sched.Split.String(), pt.Labels["capacity_ratio"])
		}
	}
}

// ratioOf is a of a label "a:1".
func ratioOf(t *testing.T, label string) float64 {
	t.Helper()
	a, one, ok := strings.Cut(label, ":")
	v, err := strconv.ParseFloat(a, 64)
	if !ok || one != "1" || err != nil {
		t.Fatalf("label %q is not a:1", label)
	}
	return v
}

// TestRelativeGoodput: each counted run's relative goodput is its goodput
// over the mean goodput of its baseline point's runs, in sweep.csv, and
// the heat map is drawn with a panel per multipath mode.
func TestRelativeGoodput(t *testing.T) {
	p := multipathPlan(t, 2)
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
	figs, err := Figures(tab)
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
