package sweep

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// TestSelectionRunsASlice: --only keeps the runs of the points with the
// named values, in a grid, with the whole plan's ids; bad arguments name
// what the plan offers.
func TestSelectionRunsASlice(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100", "dc.t_reordering=50ms,200ms"), Grid: true, Repeat: 2})
	only, err := ParseSelection(p, []string{"dc.batch=100", "dc.t_reordering=50ms, 200ms"})
	if err != nil {
		t.Fatal(err)
	}
	dir := prepared(t, p)
	f := &sweeptest.Runner{}
	out, err := Execute(context.Background(), dir, p, Options{Runner: f.Run, Only: only})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range p.Runs {
		if pt, _ := p.Point(r.Point); pt.Labels["dc.batch"] == "100" {
			want = append(want, r.ID)
		}
	}
	got := f.Calls()
	slices.Sort(got)
	slices.Sort(want)
	if out.Runs != 4 || !slices.Equal(got, want) {
		t.Errorf("ran %v (outcome %d runs), want %v", got, out.Runs, want)
	}
	if s, err := ParseSelection(p, nil); err != nil || len(s.Runs(p, p.Runs)) != len(p.Runs) {
		t.Errorf("no --only: %v, %v", s, err)
	}
	for arg, want := range map[string]string{
		"rtt=100ms":   "the plan has no axis rtt (its axes: dc.batch, dc.t_reordering)",
		"dc.batch=50": `axis dc.batch has no value "50" (its values: 25, 100)`,
		"dc.batch":    "want AXIS=V1,V2",
		"=100":        "want AXIS=V1,V2",
		"dc.batch=":   "want AXIS=V1,V2",
	} {
		if _, err := ParseSelection(p, []string{arg}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--only %s: %v, want %q", arg, err, want)
		}
	}
}
