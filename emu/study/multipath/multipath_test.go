package multipath

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study/studytest"
	"github.com/dc-emu/emu/emu/sweep"
)

// multipathPoints is the multipath-grid preset's number of points: MPTCP
// and DC at each of 4 × 4 grid points, and the single path once.
const multipathPoints = 4*4*2 + 1

func multipathPlan(t *testing.T, repeat int) *results.Plan {
	t.Helper()
	pr := multipathPreset()
	pr.Repeat = repeat
	return studytest.Plan(t, pr)
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
	if single == nil || single.Baseline != single.ID || single.Labels["capacity_ratio"] != sweep.AnyLabel || single.Labels["delay_ratio"] != sweep.AnyLabel {
		t.Fatalf("single-path point %+v", single)
	}
	if c := studytest.Config(t, p, single.ID); c.Flows[0].Path != config.PathLink1 || c.Links[1].Down.Rate != 20e6 {
		t.Errorf("single path: path %s, link2 %v bit/s", c.Flows[0].Path, c.Links[1].Down.Rate)
	}
	for _, pt := range p.Points {
		c := studytest.Config(t, p, pt.ID)
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
