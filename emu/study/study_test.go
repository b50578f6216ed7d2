package study_test

import (
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/study"
	"github.com/dc-emu/emu/emu/study/studytest"
	"github.com/dc-emu/emu/emu/sweep"
)

// Every point of every preset resolves, so a preset never fails after
// hours of runs; and the presets say what they reproduce.
func TestPresetsResolve(t *testing.T) {
	names := map[string]bool{}
	for _, pr := range study.All().Presets() {
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
		p, err := sweep.NewPlan(spec)
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
		if baseline(pr) {
			wantPoints = 0 // its baseline's points are one (the study's own test counts them)
		}
		if wantPoints > 0 && len(p.Points) != wantPoints {
			t.Errorf("preset %s: %d points, want %d", pr.Name, len(p.Points), wantPoints)
		}
		trace := p.Base["link1.trace"]
		traced := strings.HasPrefix(pr.Name, "lte-") || strings.HasSuffix(pr.Name, "leo") || pr.Name == "fc-mmwave" || pr.Name == "fc-lte"
		if traced != (trace != "none") {
			t.Errorf("preset %s: link1.trace=%s (only the lte, leo, fc-mmwave and fc-lte presets replay a trace in their base)", pr.Name, trace)
		}
		for _, pt := range p.Points {
			c := studytest.Config(t, p, pt.ID)
			if err := c.Validate(); err != nil {
				t.Errorf("preset %s point %s: %v", pr.Name, pt.ID, err)
			}
		}
	}
	for _, want := range []string{"batch", "batch-fairness", "split", "bw-ratio", "bw-ratio-matched", "delay-ratio-low",
		"delay-ratio-high", "loss", "duplication", "lte-batch", "satellite", "lfn", "sc-pairs", "queue-fairness",
		"ngtcp2-batch", "ngtcp2-batch-fairness", "lte-ngtcp2-duplication-fairness", "fc-mmwave", "fc-lte", "fc-unequal"} {
		if !names[want] {
			t.Errorf("no preset %s", want)
		}
	}
}

// baseline says whether one of pr's axes has a baseline, whose points a
// plan merges into one.
func baseline(pr sweep.Preset) bool {
	for _, a := range pr.Axes {
		if a.Baseline != "" {
			return true
		}
	}
	return false
}
