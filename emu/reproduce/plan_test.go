package reproduce

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/study/paper"
)

func TestNewPlan(t *testing.T) {
	p, err := NewPlan("quick", nil)
	if err != nil {
		t.Fatal(err)
	}
	// docs/reproduce.md: core is 17 presets, 378 + 135 runs at quick.
	if !slices.Equal(p.Parts, []string{paper.PartCore}) || len(p.Sweeps) != 17 || p.Runs() != 513 {
		t.Errorf("quick default: parts %v, %d presets, %d runs; want core, 17, 513", p.Parts, len(p.Sweeps), p.Runs())
	}
	for _, s := range p.Sweeps {
		if s.Plan.Repeat != 3 || s.Plan.Preset != s.Preset.Name || s.Preset.Part != paper.PartCore {
			t.Errorf("%s: %d repeats, plan of %q, part %s", s.Preset.Name, s.Plan.Repeat, s.Plan.Preset, s.Preset.Part)
		}
	}
	// Parts come in table order whatever order they are given in.
	p, err = NewPlan("paper", []string{paper.PartQueue, paper.PartCore})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Parts, []string{paper.PartCore, paper.PartQueue}) || len(p.Sweeps) != 19 || p.Sweeps[17].Preset.Name != "queue-fairness" || p.Sweeps[18].Preset.Name != "ngtcp2-queue-fairness" {
		t.Errorf("paper core+queue: parts %v, presets %v", p.Parts, p.Presets())
	}
	if p.Sweeps[0].Plan.Repeat != 10 {
		t.Errorf("paper scale: %d repeats", p.Sweeps[0].Plan.Repeat)
	}
	for _, c := range []struct {
		scale string
		parts []string
		want  string
	}{
		{"huge", nil, `no scale "huge" (want quick or paper)`},
		{"quick", []string{"core", "figs"}, `no part "figs" (want some of core, queue, jitter, ngtcp2, trace)`},
	} {
		if _, err := NewPlan(c.scale, c.parts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewPlan(%q, %v): %v, want %q", c.scale, c.parts, err, c.want)
		}
	}
}

func TestFormatWall(t *testing.T) {
	for d, want := range map[time.Duration]string{
		42 * time.Second: "42s", 12*time.Minute + 29*time.Second: "12m", 3*time.Hour + 5*time.Minute: "3h05m", 26 * time.Hour: "26h00m",
	} {
		if got := FormatWall(d); got != want {
			t.Errorf("FormatWall(%v) = %s, want %s", d, got, want)
		}
	}
}
