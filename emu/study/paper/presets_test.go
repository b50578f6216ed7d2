package paper

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/findings"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study/studytest"
	"github.com/dc-emu/emu/emu/sweep"
	"github.com/dc-emu/emu/emu/units"
	"github.com/dc-emu/emu/internal/emutest"
)

// lookup finds one of the study's presets by name.
func lookup(name string) (sweep.Preset, bool) { return sweep.Catalog{Study()}.Preset(name) }

func TestPresetContents(t *testing.T) {
	// The batch preset: the paper's batch sizes at the paper's defaults.
	b := studytest.Named(t, Study(), "batch")
	if !slices.Equal(b.Vary[0].Values, []string{"25", "50", "100", "150", "300", "500"}) || b.Repeat != 10 {
		t.Errorf("batch preset %v × %d", b.Vary[0].Values, b.Repeat)
	}
	if b.Base["link1.down.rate"] != "20mbit" || b.Base["dc.t_reordering"] != "200ms" || b.Base["dc.split"] != "1:1" {
		t.Errorf("batch preset base %s %s %s", b.Base["link1.down.rate"], b.Base["dc.t_reordering"], b.Base["dc.split"])
	}
	// Matching split: each point's split equals its bandwidth ratio.
	p := studytest.Named(t, Study(), "bw-ratio-matched")
	for _, pt := range p.Points {
		r1, r2 := studytest.Config(t, p, pt.ID).Links[0].Down.Rate, studytest.Config(t, p, pt.ID).Links[1].Down.Rate
		sp := studytest.Config(t, p, pt.ID).DC.Sched.Split
		a, c := sp[0], sp[1]
		if (r1/r2)-(a/c) > 1e-9 || (a/c)-(r1/r2) > 1e-9 {
			t.Errorf("point %s: rates %v:%v, split %s", pt.ID, r1, r2, studytest.Config(t, p, pt.ID).DC.Sched.Split.String())
		}
		if r1+r2 != 40e6 {
			t.Errorf("point %s: rates %v + %v, want a mean of 20 Mbit/s", pt.ID, r1, r2)
		}
	}
}

// A preset can be shortened from the command line: the caller's settings
// come after the preset's.
func TestPresetOverride(t *testing.T) {
	spec := namedPresetSpec(t, "batch-fairness")
	spec.Settings = append(spec.Settings, config.Setting{Key: "flow.duration", Value: "5s"})
	spec.Repeat = 2
	p, err := sweep.NewPlan(spec)
	if err != nil {
		t.Fatal(err)
	}
	if p.Base["flows.0.duration"] != "5s" || p.Base["flows.2.duration"] != "5s" || len(p.Runs) != 12 {
		t.Errorf("override: duration %s, %d runs", p.Base["flows.0.duration"], len(p.Runs))
	}
}

// namedPresetSpec is the spec of the preset of that name.
func namedPresetSpec(t *testing.T, name string) sweep.Spec {
	t.Helper()
	pr, ok := lookup(name)
	if !ok {
		t.Fatalf("no preset %s", name)
	}
	spec, err := pr.Spec()
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// The paper presets follow the paper's method: every fairness flow with
// the large receive buffer, the throughput figures with the paper's lines,
// ngtcp2 with NewReno and CUBIC, StaticA on both downlinks for the trace
// repeats, the 200 ms sum of the high-delay scenario, the presets' queue.
func TestPaperMethod(t *testing.T) {
	wantLines := map[string][]string{
		"":            {"quic-default", "quic-large", "tcp-reno"},
		"ngtcp2-":     {"ngtcp2-reno", "ngtcp2-cubic", "tcp-cubic"},
		"lte-":        {"quic-default", "quic-large", "tcp-reno"},
		"lte-ngtcp2-": {"ngtcp2-cubic", "tcp-cubic"},
	}
	family := func(name string) string {
		for _, f := range []string{"lte-ngtcp2-", "ngtcp2-", "lte-"} {
			if strings.HasPrefix(name, f) {
				return f
			}
		}
		return ""
	}
	seen := map[string]int{}
	for _, pr := range Study().Presets() {
		if pr.Part == "" || pr.Name == "sc-pairs" {
			continue
		}
		p := studytest.Plan(t, pr)
		fam := family(pr.Name)
		study := pr.Part == PartQueue || pr.Part == PartJitter
		if !study {
			seen[fam]++
		}
		if !strings.Contains(pr.Notes, "Fig") || !strings.Contains(pr.Notes, "queue") || pr.Part != PartQueue && !strings.Contains(pr.Notes, "stands in for aioquic") && !strings.Contains(pr.Notes, "ngtcp2 is the version") {
			t.Errorf("%s: the notes must name the figure, the queue and the implementation's difference from the paper's", pr.Name)
		}
		for _, pt := range p.Points {
			c := studytest.Config(t, p, pt.ID)
			for _, l := range c.Links {
				if got := l.Down.Queue.String(); got != "100ms" && pt.Labels["link.queue"] == "" {
					t.Errorf("%s %s: queue %s, want the presets' 100ms", pr.Name, pt.ID, got)
				}
				if (l.Trace == "StaticA") != strings.HasPrefix(pr.Name, "lte-") {
					t.Errorf("%s %s: trace %q (StaticA in the lte- presets only)", pr.Name, pt.ID, l.Trace)
				}
			}
			if strings.Contains(pr.Name, "delay-ratio-high") {
				if sum := c.Links[0].Down.Delay + c.Links[1].Down.Delay; sum < 200*time.Millisecond-time.Microsecond || sum > 200*time.Millisecond {
					t.Errorf("%s %s: delays sum to %v, want the paper's 200 ms", pr.Name, pt.ID, sum)
				}
			}
			for _, f := range c.Flows {
				switch {
				case pr.Scenario == "fairness" && f.Proto == "quic" && f.RcvBuf != "large":
					t.Errorf("%s %s: fairness flow %s with rcvbuf %s (the paper used the modified buffer)", pr.Name, pt.ID, f.Name, f.RcvBuf)
				case f.ServerImpl == "ngtcp2" && (f.ClientImpl != "ngtcp2" || f.CC != "reno" && f.CC != "cubic"):
					t.Errorf("%s %s: ngtcp2 flow %s: client %s, cc %q", pr.Name, pt.ID, f.Name, f.ClientImpl, f.CC)
				case fam != "" && fam != "lte-" && f.Proto == "quic" && f.ServerImpl != "ngtcp2":
					t.Errorf("%s %s: flow %s is %s in an ngtcp2 preset", pr.Name, pt.ID, f.Name, f.ServerImpl)
				case f.Proto == "tcp" && f.CC != "reno" && f.CC != "cubic":
					t.Errorf("%s %s: TCP flow %s with cc %q (the paper's TCP is NewReno, CUBIC beside ngtcp2)", pr.Name, pt.ID, f.Name, f.CC)
				}
			}
		}
		if pr.Scenario == "throughput" && !study {
			var stack *results.Axis
			for i := range p.Vary {
				if p.Vary[i].Key == StackAxis {
					stack = &p.Vary[i]
				}
			}
			if stack == nil || !pr.Grid || !slices.Equal(stack.Values, wantLines[fam]) {
				t.Errorf("%s: lines %v, want the grid with %v", pr.Name, stack, wantLines[fam])
			}
		}
		if strings.HasPrefix(pr.Name, "ngtcp2-") && pr.Scenario == "fairness" {
			if len(p.Vary) != 2 || !slices.Equal(p.Vary[1].Values, []string{"ngtcp2-reno", "ngtcp2-cubic"}) {
				t.Errorf("%s: axes %v, want NewReno and CUBIC", pr.Name, p.Vary)
			}
		}
	}
	// Eight parameters × two scenarios on constant links; six over the trace.
	if seen[""] != 16 || seen["ngtcp2-"] != 16 || seen["lte-"] != 12 || seen["lte-ngtcp2-"] != 12 {
		t.Errorf("paper presets per family: %v", seen)
	}
}

func TestQueuePreset(t *testing.T) {
	pr, _ := lookup("queue-fairness")
	p := studytest.Plan(t, pr)
	if len(p.Points) != 20 || !slices.Equal(p.Vary[1].Values, []string{"50ms", "100ms", "200ms", "500ms", "1000p"}) {
		t.Fatalf("queue-fairness: %d points, queues %v", len(p.Points), p.Vary[1].Values)
	}
	for _, pt := range p.Points {
		c := studytest.Config(t, p, pt.ID)
		if got := c.Links[1].Down.Queue.String(); got != pt.Labels["link.queue"] {
			t.Errorf("%s: queue %s, label %s", pt.ID, got, pt.Labels["link.queue"])
		}
		switch pt.Labels["case"] {
		case "ratio5-even", "ratio5-matched":
			if r := c.Links[0].Down.Rate / c.Links[1].Down.Rate; r < 4.999 || r > 5.001 || (c.DC.Sched.Split.String() == "5:1") != (pt.Labels["case"] == "ratio5-matched") {
				t.Errorf("%s: rates %v/%v split %s", pt.ID, c.Links[0].Down.Rate, c.Links[1].Down.Rate, c.DC.Sched.Split.String())
			}
		case "dup-loss0", "dup-loss2":
			if c.DC.Sched.Kind != "duplicate" || (c.Links[0].Down.Loss > 0) != (pt.Labels["case"] == "dup-loss2") {
				t.Errorf("%s: scheduler %s loss %v", pt.ID, c.DC.Sched.Kind, c.Links[0].Down.Loss)
			}
		default:
			t.Errorf("%s: case %q", pt.ID, pt.Labels["case"])
		}
	}
}

func TestJitterPresets(t *testing.T) {
	for name, points := range map[string]int{"jitter": 18, "jitter-fairness": 6} {
		pr, _ := lookup(name)
		p := studytest.Plan(t, pr)
		if len(p.Points) != points || pr.Part != PartJitter || !slices.Equal(p.Vary[0].Values, []string{"ordered", "independent", "none"}) {
			t.Fatalf("%s: %d points, part %q, axes %v", name, len(p.Points), pr.Part, p.Vary)
		}
		for _, pt := range p.Points {
			for _, l := range studytest.Config(t, p, pt.ID).Links {
				d := l.Down
				jittered := d.Jitter.StdDev(d.Delay) > 0
				if d.Reorder != (pt.Labels["jitter"] == "independent") || jittered != (pt.Labels["jitter"] != "none") {
					t.Errorf("%s %s: reorder %v, jitter %v", name, pt.ID, d.Reorder, d.Jitter.StdDev(d.Delay))
				}
			}
			if sum := studytest.Config(t, p, pt.ID).Links[0].Down.Delay + studytest.Config(t, p, pt.ID).Links[1].Down.Delay; sum < 200*time.Millisecond-time.Microsecond || sum > 200*time.Millisecond {
				t.Errorf("%s %s: delays sum to %v, want the high-delay scenario's 200 ms", name, pt.ID, sum)
			}
		}
	}
}

// The reproduction at each scale: the scale's repeats, and its size or
// duration in place of the preset's.
func TestReproducePresets(t *testing.T) {
	for _, sc := range ReproduceScales() {
		ps, err := ReproducePresets(sc)
		if err != nil {
			t.Fatal(err)
		}
		parts := map[string]int{}
		for _, pr := range ps {
			parts[pr.Part]++
			p := studytest.Plan(t, pr)
			if p.Repeat != sc.Repeat {
				t.Errorf("%s %s: %d repeats", sc.Name, pr.Name, p.Repeat)
			}
			dur, _ := time.ParseDuration(sc.Duration)
			size, _ := units.ParseSize(sc.Size)
			for _, pt := range p.Points {
				for _, f := range studytest.Config(t, p, pt.ID).Flows {
					if pr.Scenario == "fairness" && f.Duration != dur || pr.Scenario == "throughput" && f.Size != size {
						t.Errorf("%s %s %s: flow %s size %d duration %v", sc.Name, pr.Name, pt.ID, f.Name, f.Size, f.Duration)
					}
				}
			}
		}
		if len(parts) != 5 || parts[PartCore] != 17 || parts[PartQueue] != 2 || parts[PartJitter] != 2 {
			t.Errorf("%s: parts %v", sc.Name, parts)
		}
	}
	quick, ok := LookupReproduceScale("quick")
	if !ok || quick.Repeat != 3 || quick.Duration != "60s" || quick.Size != "20MB" {
		t.Errorf("quick scale %+v", quick)
	}
	core, err := ReproducePresets(quick, PartCore, PartQueue)
	if err != nil || len(core) != 19 {
		t.Errorf("core and queue: %d presets, %v", len(core), err)
	}
	if _, err := ReproducePresets(quick, "figs"); err == nil {
		t.Error("an unknown part is accepted")
	}
	// The group's presets are copies: changing one leaves the table alone.
	core[0].Settings[0] = "changed"
	if pr, _ := lookup(core[0].Name); pr.Settings[0] == "changed" {
		t.Error("ReproducePresets shares the preset table's settings")
	}
}

// Every finding of the reproduction names points that exist in the
// presets' plans, and the report finds the sweep's figures by their names.
func TestFindingsResolveInPresets(t *testing.T) {
	sc, _ := LookupReproduceScale("quick")
	ps, err := ReproducePresets(sc)
	if err != nil {
		t.Fatal(err)
	}
	res := findings.Results{}
	for _, pr := range ps {
		p := studytest.Plan(t, pr)
		sw := &findings.Sweep{Preset: pr.Name}
		for _, a := range p.Vary {
			sw.Axes = append(sw.Axes, findings.Axis{Key: a.Key, Values: a.Values})
			if got, want := findings.FigureStem("jfi", a.Key), "jfi-"+results.FileSlug(a.Key); got != want {
				t.Errorf("figure stem %s, sweep names it %s", got, want)
			}
		}
		for i := range p.Points {
			pt := findings.Point{Labels: map[string]string{}}
			for _, a := range p.Vary {
				pt.Labels[a.Key] = p.Label(&p.Points[i], a)
			}
			sw.Points = append(sw.Points, pt)
		}
		res[pr.Name] = sw
	}
	if err := findings.Validate(Findings(), res); err != nil {
		t.Error(err)
	}
	// With every metric at every point, every finding with a rule is
	// judged: no set that fails to split an axis, no label a rule cannot
	// read.
	var metrics []string
	for _, f := range Findings() {
		metrics = append(metrics, f.Metrics()...)
	}
	for _, sw := range res {
		for i := range sw.Points {
			sw.Points[i].Metrics = map[string]findings.Stat{}
			for j, m := range metrics {
				sw.Points[i].Metrics[m] = findings.Stat{Mean: float64(1 + (i*7+j*3)%11), SD: 0.1, CI95: 0.1, N: 3}
			}
		}
	}
	for _, r := range findings.Evaluate(Findings(), res) {
		if (r.Verdict == findings.NotJudged) != (len(r.Checks) == 0) {
			t.Errorf("finding %s: %s: %s", r.ID, r.Verdict, r.Reason)
		}
	}
}

// TestPlanGolden pins what emu sweep --dry-run prints of a paper preset,
// one shard of it.
func TestPlanGolden(t *testing.T) {
	spec := namedPresetSpec(t, "batch")
	spec.Repeat = 2
	plan, err := sweep.NewPlan(spec)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := sweep.WritePlan(&b, plan, sweep.Shard{I: 1, N: 2}); err != nil {
		t.Fatal(err)
	}
	emutest.Golden(t, "plan.golden", b.Bytes())
}
