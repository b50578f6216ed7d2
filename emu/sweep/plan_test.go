package sweep

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
)

func TestParseVary(t *testing.T) {
	for _, tc := range []struct {
		in       string
		key      string
		values   []string
		settings [][]string
		err      string
	}{
		{in: "dc.batch=25,50, 100", key: "dc.batch", values: []string{"25", "50", "100"},
			settings: [][]string{{"dc.batch=25"}, {"dc.batch=50"}, {"dc.batch=100"}}},
		{in: "link.bw_ratio+dc.split=1:1,3:1", key: "link.bw_ratio+dc.split", values: []string{"1:1", "3:1"},
			settings: [][]string{{"link.bw_ratio=1:1", "dc.split=1:1"}, {"link.bw_ratio=3:1", "dc.split=3:1"}}},
		{in: "dc.batch", err: "want KEY=V1,V2"},
		{in: "=1,2", err: "want KEY=V1,V2"},
		{in: "dc.batch=1,,2", err: "empty value"},
		{in: "dc.batch=1,2,1", err: "appears twice"},
		{in: "a++b=1", err: "is not a key"},
		{in: "a+a=1", err: "appears twice"},
		{in: "run.seed=1,2", err: "--seed"},
	} {
		a, err := ParseVary(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseVary(%q) error = %v, want it to mention %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseVary(%q): %v", tc.in, err)
			continue
		}
		if a.Key != tc.key || !slices.Equal(a.Values, tc.values) || !reflect.DeepEqual(a.Settings, tc.settings) {
			t.Errorf("ParseVary(%q) = %+v, want key %s values %v settings %v", tc.in, a, tc.key, tc.values, tc.settings)
		}
	}
}

func FuzzParseVary(f *testing.F) {
	emutest.AddSeeds[string](f, "dc.batch=25,50", "a+b=1:1,2:1", "=", ",=,", "x=,", "k=v=w", "run.seed=1")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseVary(s)
		if err != nil {
			return
		}
		if err := checkAxis(a); err != nil {
			t.Fatalf("ParseVary(%q) gave an axis that fails its own check: %v", s, err)
		}
	})
}

func TestOneAtATime(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100,500", "dc.split=1:1,9:1")})
	// dc.batch=100 and dc.split=1:1 are both the base: one point.
	want := []struct {
		labels map[string]string
		params map[string]string
	}{
		{map[string]string{"dc.batch": "25"}, map[string]string{"dc.batch": "25"}},
		{map[string]string{"dc.batch": "100", "dc.split": "1:1"}, map[string]string{}},
		{map[string]string{"dc.batch": "500"}, map[string]string{"dc.batch": "500"}},
		{map[string]string{"dc.split": "9:1"}, map[string]string{"dc.split": "9:1"}},
	}
	if len(p.Points) != len(want) {
		t.Fatalf("%d points, want %d: %+v", len(p.Points), len(want), p.Points)
	}
	for i, w := range want {
		pt := p.Points[i]
		if !maps.Equal(pt.Labels, w.labels) || !maps.Equal(pt.Params, w.params) {
			t.Errorf("point %d = labels %v params %v, want %v %v", i, pt.Labels, pt.Params, w.labels, w.params)
		}
		if pointConfig(t, p, pt.ID).DC.Sched.Batch == 0 {
			t.Errorf("point %d has no resolved configuration", i)
		}
	}
	if got := []string{p.Points[0].ID, p.Points[3].ID}; !slices.Equal(got, []string{"p01", "p04"}) {
		t.Errorf("ids %v", got)
	}
	// The point that is not varied on an axis shows the base value there.
	if got := p.Label(&p.Points[3], p.Vary[0]); got != "100" {
		t.Errorf("dc.batch of the split point = %q, want the base 100", got)
	}
	if len(p.Runs) != 4*3 {
		t.Fatalf("%d runs, want 12", len(p.Runs))
	}
	// Runs go repeat by repeat, so a partial sweep has every point early.
	if p.Runs[0].ID != "p01-r1" || p.Runs[1].ID != "p02-r1" || p.Runs[4].ID != "p01-r2" {
		t.Errorf("run order %s %s %s", p.Runs[0].ID, p.Runs[1].ID, p.Runs[4].ID)
	}
}

func TestGrid(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100,500", "dc.split=1:1,9:1"), Grid: true, Repeat: 2})
	if len(p.Points) != 6 || len(p.Runs) != 12 {
		t.Fatalf("%d points %d runs, want 6 and 12", len(p.Points), len(p.Runs))
	}
	seen := map[string]bool{}
	for _, pt := range p.Points {
		if len(pt.Labels) != 2 {
			t.Errorf("%s labels %v, want both axes", pt.ID, pt.Labels)
		}
		seen[pt.Labels["dc.batch"]+" "+pt.Labels["dc.split"]] = true
		if pointConfig(t, p, pt.ID).DC.Sched.Split.String() != pt.Labels["dc.split"] || pt.Params["dc.split"] != pt.Labels["dc.split"] && pt.Labels["dc.split"] != "1:1" {
			t.Errorf("%s: config split %s params %v labels %v", pt.ID, pointConfig(t, p, pt.ID).DC.Sched.Split.String(), pt.Params, pt.Labels)
		}
	}
	if len(seen) != 6 {
		t.Errorf("combinations %v", seen)
	}
	// The first axis varies slowest.
	if p.Points[0].Labels["dc.batch"] != "25" || p.Points[1].Labels["dc.batch"] != "25" || p.Points[1].Labels["dc.split"] != "9:1" {
		t.Errorf("grid order: %v %v", p.Points[0].Labels, p.Points[1].Labels)
	}
}

func TestNoAxesRepeatsTheBase(t *testing.T) {
	p := testPlan(t, Spec{Repeat: 4})
	if len(p.Points) != 1 || len(p.Runs) != 4 || len(p.Points[0].Params) != 0 {
		t.Fatalf("plan %+v", p)
	}
}

func TestDerivedAndCoupledKeys(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "link.bw_ratio=3:1", "link.bw_ratio+dc.split=3:1", "link.delay_ratio=3:1")})
	if len(p.Points) != 3 {
		t.Fatalf("%d points", len(p.Points))
	}
	bw := p.Points[0].Params
	if bw["link1.down.rate"] != "30mbit" || bw["link2.down.rate"] != "10mbit" || bw["dc.split"] != "" {
		t.Errorf("bw_ratio 3:1 params %v, want 30 and 10 Mbit/s, split unchanged", bw)
	}
	matched := p.Points[1].Params
	if matched["link1.down.rate"] != "30mbit" || matched["dc.split"] != "3:1" {
		t.Errorf("bw_ratio+split 3:1 params %v", matched)
	}
	d := p.Points[2].Params
	if d["link1.down.delay"] != "15ms" || d["link2.down.delay"] != "5ms" {
		t.Errorf("delay_ratio 3:1 params %v, want 15 ms and 5 ms (sum kept at 20 ms)", d)
	}
}

func TestAxisDefaults(t *testing.T) {
	p := testPlan(t, Spec{Axes: append(axes(t, "dc.batch=25", "link.delay=5ms", "link.bw_ratio=2:1", "flows.count=2",
		"link.bw_ratio+dc.split=2:1", "dc.batch+dc.sn_bits=12"), Labeled("rtt", Value{"100ms", []string{"link1.delay=50ms"}}))})
	want := []string{"100", "10ms", "1:1", "1", "1:1", ""}
	for i, w := range want {
		if got := p.Vary[i].Default; got != w {
			t.Errorf("default of %s = %q, want %q", p.Vary[i].Key, got, w)
		}
	}
	if got := p.Vary[len(p.Vary)-1].Default; got != "" {
		t.Errorf("labelled axis default %q, want none", got)
	}
}

func TestPlanErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		want []string
	}{
		{Spec{Axes: axes(t, "dc.batch=25,0")}, []string{"dc.batch=0", "at least 1"}},
		{Spec{Axes: axes(t, "dc.bogus=1")}, []string{"dc.bogus"}},
		{Spec{Axes: axes(t, "link.loss=2")}, []string{"link.loss"}},
		{Spec{Axes: axes(t, "dc.batch=1,2", "dc.batch=3")}, []string{"dc.batch", "twice"}},
		{Spec{Axes: axes(t, "dc.split=1:1,x"), Grid: true}, []string{"dc.split=x"}},
		{Spec{Repeat: -1}, []string{"--repeat"}},
		{Spec{Scenario: "nope"}, []string{"base configuration", "nope"}},
	} {
		if tc.spec.Scenario == "" {
			tc.spec.Scenario = "throughput"
		}
		if tc.spec.Repeat == 0 {
			tc.spec.Repeat = 1
		}
		_, err := NewPlan(tc.spec)
		if err == nil {
			t.Errorf("%+v: no error", tc.spec.Axes)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not mention %q", err, w)
			}
		}
	}
}

func TestSeeds(t *testing.T) {
	spec := Spec{Axes: axes(t, "dc.batch=25,100,500"), Repeat: 10}
	a, b := testPlan(t, spec), testPlan(t, spec)
	seen := map[uint64]string{}
	for i, r := range a.Runs {
		if r.Seed != b.Runs[i].Seed {
			t.Fatalf("run %s: seed %d then %d", r.ID, r.Seed, b.Runs[i].Seed)
		}
		if r.Seed == 0 || r.Seed >= 1<<53 {
			t.Errorf("run %s: seed %d out of range", r.ID, r.Seed)
		}
		if other, dup := seen[r.Seed]; dup {
			t.Errorf("runs %s and %s share seed %d", other, r.ID, r.Seed)
		}
		seen[r.Seed] = r.ID
	}
	if a.Seed != DefaultSeed {
		t.Errorf("base seed %d, want the default %d", a.Seed, DefaultSeed)
	}
	spec.Seed = 7
	c := testPlan(t, spec)
	if c.Runs[0].Seed == a.Runs[0].Seed {
		t.Error("another base seed gave the same run seed")
	}
	// Adding a value to an axis keeps the seeds of the other points.
	more := testPlan(t, Spec{Axes: axes(t, "dc.batch=10,25,100,500"), Repeat: 10})
	bySeed := map[string]uint64{}
	for _, r := range more.Runs {
		pt, _ := more.Point(r.Point)
		bySeed[pt.Labels["dc.batch"]+"/"+string(rune('0'+r.Repeat))] = r.Seed
	}
	for _, r := range a.Runs {
		pt, _ := a.Point(r.Point)
		if got := bySeed[pt.Labels["dc.batch"]+"/"+string(rune('0'+r.Repeat))]; got != r.Seed {
			t.Errorf("batch %s repeat %d: seed %d in the larger plan, %d before", pt.Labels["dc.batch"], r.Repeat, got, r.Seed)
		}
	}
}

// TestPlanRateAndTraceConflict: the configuration's rule that a trace and
// an explicit rate never compete holds for a sweep's base and its points.
func TestPlanRateAndTraceConflict(t *testing.T) {
	axis, err := ParseVary("link1.down.rate=10mbit,20mbit")
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewPlan(Spec{Scenario: "throughput", Repeat: 1, Axes: []results.Axis{axis},
		Settings: []config.Setting{{Key: "link1.trace", Value: "StaticA"}}})
	if err == nil || !strings.Contains(err.Error(), "link1.trace=StaticA") || !strings.Contains(err.Error(), "link1.down.rate=10mbit") {
		t.Errorf("plan: %v, want an error naming both keys", err)
	}
	// Without an explicit trace the varied rate makes link1 constant-rate.
	p, err := NewPlan(Spec{Scenario: "throughput", Repeat: 1, Axes: []results.Axis{axis}})
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range p.Points {
		if pointConfig(t, p, pt.ID).Links[0].Trace != "" || pt.Params["link1.trace"] != "none" {
			t.Errorf("point %s: link1 trace %q, params %v", pt.ID, pointConfig(t, p, pt.ID).Links[0].Trace, pt.Params)
		}
	}
}

// pointConfig is PointConfig of a point that must resolve.
func pointConfig(t *testing.T, p *results.Plan, id string) config.Config {
	t.Helper()
	cfg, err := PointConfig(p, id)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
