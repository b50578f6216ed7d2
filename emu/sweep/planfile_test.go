package sweep

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

func TestParsePlan(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100")})
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := results.ParsePlan(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := PlanDiff(p, got); d != "" {
		t.Errorf("plan.json does not round-trip: %s", d)
	}
	for _, tc := range []struct{ json, want string }{
		{`{"version": 2}`, "version 2"},
		{`{"version": 1, "points": [{"id": "p1"}], "runs": [{"id": "../x", "point": "p1"}]}`, "not a unique directory name"},
		{`{"version": 1, "points": [{"id": "p1"}], "runs": [{"id": "r", "point": "p2"}]}`, `point "p2" is not in points`},
		{`{"version": 1, "points": [{"id": "p1"}, {"id": "p1"}], "runs": []}`, "not a unique directory name"},
		{`{"version": 1, "points": [], "runs": []}`, "no runs"},
		{`{"version": 1, "runs": [{"id": "r", "seed": -1}]}`, "cannot unmarshal"},
	} {
		if _, err := results.ParsePlan([]byte(tc.json)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePlan(%s) error %v, want %q", tc.json, err, tc.want)
		}
	}
}

// A plan.json from anywhere (another version, a hand edit, a truncated
// copy) is rejected or accepted, never a panic; an accepted one can be
// aggregated (with every run missing) and reported.
func FuzzParsePlan(f *testing.F) {
	f.Add([]byte(`{"version": 1, "vary": [{"key": "dc.batch", "values": ["1"], "settings": [["dc.batch=1"]]}], "points": [{"id": "p1", "labels": {"dc.batch": "1"}}], "runs": [{"id": "p1-r1", "point": "p1", "repeat": 1, "seed": 5}]}`))
	f.Add([]byte(`{"version": 1, "grid": true, "vary": [{"key": "a", "values": ["x", "y"]}], "points": [{"id": "p1", "labels": {"a": "x"}}], "runs": [{"id": "r", "point": "p1"}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := results.ParsePlan(b)
		if err != nil {
			return
		}
		dir := t.TempDir()
		tab, err := Aggregate(dir, p, AggregateOptions{})
		if err != nil {
			return
		}
		var sb strings.Builder
		if err := results.WriteSweepCSV(&sb, tab); err != nil {
			t.Fatal(err)
		}
		if _, err := Figures(tab, nil); err != nil {
			return
		}
	})
}

// TestPlanDiffNewKeys: a plan written before a key existed resumes when
// the key is at its default, and is a different sweep when it is not.
func TestPlanDiffNewKeys(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100")})
	old := *p
	old.Base = maps.Clone(p.Base)
	delete(old.Base, "dc.t_reordering") // a key this emu added
	if d := PlanDiff(&old, p); d != "" {
		t.Errorf("a new key at its default: %s", d)
	}
	changed := *p
	changed.Base = maps.Clone(p.Base)
	changed.Base["dc.t_reordering"] = "50ms"
	if d := PlanDiff(&old, &changed); !strings.Contains(d, "has no dc.t_reordering, now 50ms") {
		t.Errorf("a new key set otherwise: %q", d)
	}
	if d := PlanDiff(p, &old); !strings.Contains(d, "dc.t_reordering=200ms, now unset") {
		t.Errorf("a key the new plan lacks: %q", d)
	}
}
