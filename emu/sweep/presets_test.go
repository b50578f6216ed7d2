package sweep

import (
	"slices"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/pdcp"
)

// Every point of every preset resolves, so a preset never fails after
// hours of runs; and the presets say what they reproduce.
func TestPresetsResolve(t *testing.T) {
	names := map[string]bool{}
	for _, pr := range Presets() {
		if names[pr.Name] {
			t.Errorf("preset %s twice", pr.Name)
		}
		names[pr.Name] = true
		if pr.Title == "" || pr.Figure == "" || pr.Notes == "" || pr.Repeat < 1 || len(pr.Axes) == 0 {
			t.Errorf("preset %s is missing its title, figure, notes, repeats or axes", pr.Name)
		}
		spec, err := pr.Spec()
		if err != nil {
			t.Fatalf("%s: %v", pr.Name, err)
		}
		p, err := NewPlan(spec)
		if err != nil {
			t.Errorf("preset %s: %v", pr.Name, err)
			continue
		}
		wantPoints := 1
		if pr.Grid {
			for _, a := range pr.Axes {
				wantPoints *= len(a.Values)
			}
		} else {
			wantPoints = len(pr.Axes[0].Values)
		}
		if len(p.Points) != wantPoints {
			t.Errorf("preset %s: %d points, want %d", pr.Name, len(p.Points), wantPoints)
		}
		trace := p.Base["link1.trace"]
		if strings.HasPrefix(pr.Name, "lte-") != (trace != "none") {
			t.Errorf("preset %s: link1.trace=%s (only the lte presets replay a trace)", pr.Name, trace)
		}
		for _, pt := range p.Points {
			if err := pt.Config.Validate(); err != nil {
				t.Errorf("preset %s point %s: %v", pr.Name, pt.ID, err)
			}
		}
	}
	for _, want := range []string{"batch", "batch-fairness", "split", "bw-ratio", "bw-ratio-matched", "delay-ratio-low",
		"delay-ratio-high", "loss", "duplication", "lte-batch", "satellite", "lfn"} {
		if !names[want] {
			t.Errorf("no preset %s", want)
		}
	}
}

func TestPresetContents(t *testing.T) {
	plan := func(name string) *results.Plan {
		pr, ok := LookupPreset(name)
		if !ok {
			t.Fatalf("no preset %s", name)
		}
		spec, err := pr.Spec()
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(spec)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The batch preset: the paper's batch sizes at the paper's defaults.
	b := plan("batch")
	if !slices.Equal(b.Vary[0].Values, []string{"25", "50", "100", "150", "300", "500"}) || b.Repeat != 10 {
		t.Errorf("batch preset %v × %d", b.Vary[0].Values, b.Repeat)
	}
	if b.Base["link1.down.rate"] != "20mbit" || b.Base["dc.t_reordering"] != "200ms" || b.Base["dc.split"] != "1:1" {
		t.Errorf("batch preset base %s %s %s", b.Base["link1.down.rate"], b.Base["dc.t_reordering"], b.Base["dc.split"])
	}
	// Matching split: each point's split equals its bandwidth ratio.
	for _, pt := range plan("bw-ratio-matched").Points {
		r1, r2 := pt.Config.Links[0].Down.Rate, pt.Config.Links[1].Down.Rate
		sp, err := pdcp.ParseSplit(pt.Config.DC.Split)
		a, c := sp[0], sp[1]
		if err != nil || (r1/r2)-(a/c) > 1e-9 || (a/c)-(r1/r2) > 1e-9 {
			t.Errorf("point %s: rates %v:%v, split %s", pt.ID, r1, r2, pt.Config.DC.Split)
		}
		if r1+r2 != 40e6 {
			t.Errorf("point %s: rates %v + %v, want a mean of 20 Mbit/s", pt.ID, r1, r2)
		}
	}
	// Satellite: one path, DC off, 50/10 Mbit/s, RTT = 2 × one-way delay.
	for _, pt := range plan("satellite").Points {
		c := pt.Config
		if c.DC.Enabled || c.Flows[0].Path != "link1" || c.Links[0].Down.Rate != 50e6 || c.Links[0].Up.Rate != 10e6 {
			t.Errorf("satellite %s: %+v", pt.ID, c)
		}
		if got := 2 * c.Links[0].Down.Delay; got.String() != pt.Labels["rtt"] {
			t.Errorf("satellite %s: RTT %v, label %s", pt.ID, got, pt.Labels["rtt"])
		}
	}
	// LFN: the flow mixes have the named QUIC and TCP flows.
	for _, pt := range plan("lfn").Points {
		var q, tc int
		for _, f := range pt.Config.Flows {
			switch {
			case f.Proto == "quic" && strings.HasPrefix(f.Name, "quic"):
				q++
			case f.Proto == "tcp" && strings.HasPrefix(f.Name, "tcp"):
				tc++
			default:
				t.Errorf("lfn %s: flow %s proto %s", pt.ID, f.Name, f.Proto)
			}
			if f.Proto == "tcp" && f.CC != "cubic" {
				t.Errorf("lfn %s: TCP flow %s with cc %q, want cubic", pt.ID, f.Name, f.CC)
			}
			if f.Path != "link1" || f.Duration == 0 || f.Size != 0 {
				t.Errorf("lfn %s: flow %+v", pt.ID, f)
			}
		}
		label := pt.Labels["flows"]
		wantQ, wantT := 0, 0
		for part := range strings.SplitSeq(label, "+") {
			n := int(part[0] - '0')
			if strings.HasSuffix(part, "q") {
				wantQ = n
			} else {
				wantT = n
			}
		}
		if q != wantQ || tc != wantT {
			t.Errorf("lfn %s (%s): %d QUIC and %d TCP flows", pt.ID, label, q, tc)
		}
	}
}

// A preset can be shortened from the command line: the caller's settings
// come after the preset's.
func TestPresetOverride(t *testing.T) {
	pr, _ := LookupPreset("batch-fairness")
	spec, err := pr.Spec()
	if err != nil {
		t.Fatal(err)
	}
	spec.Settings = append(spec.Settings, config.Setting{Key: "flow.duration", Value: "5s"})
	spec.Repeat = 2
	p, err := NewPlan(spec)
	if err != nil {
		t.Fatal(err)
	}
	if p.Base["flows.0.duration"] != "5s" || p.Base["flows.2.duration"] != "5s" || len(p.Runs) != 12 {
		t.Errorf("override: duration %s, %d runs", p.Base["flows.0.duration"], len(p.Runs))
	}
}
