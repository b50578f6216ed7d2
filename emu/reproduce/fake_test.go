package reproduce

import (
	"path/filepath"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// newFake is the fake runner of this package's tests: goodput that
// follows from the configuration (DC lower with a larger batch) and the
// seed, downlinks at 90 % of their rate, and each call recorded as
// preset/run.
func newFake() *sweeptest.Runner {
	return &sweeptest.Runner{
		Goodput: func(cfg config.Config, i int) float64 {
			return 10 - float64(cfg.DC.Sched.Batch)/100 + float64(cfg.Seed%97)/97 + float64(i)
		},
		DurationS: 60,
		Links: func(cfg config.Config) []results.LinkResult {
			var ls []results.LinkResult
			for i, l := range cfg.Links {
				name := []string{"link1", "link2"}[i]
				ls = append(ls, results.LinkResult{Name: name, Dir: "down", CapacityMbps: l.Down.Rate / 1e6, ThroughputMbps: 0.9 * l.Down.Rate / 1e6})
			}
			return ls
		},
		Name: func(out string) string {
			return filepath.Base(filepath.Dir(filepath.Dir(out))) + "/" + filepath.Base(out)
		},
	}
}

// smallPlan is the quick reproduction cut to two presets with few points:
// batch-fairness (6 points) and sc-pairs (3), 3 repeats each.
func smallPlan(t *testing.T) *Plan {
	t.Helper()
	p, err := NewPlan("quick", nil)
	if err != nil {
		t.Fatal(err)
	}
	var keep []Sweep
	for _, s := range p.Sweeps {
		if s.Preset.Name == "batch-fairness" || s.Preset.Name == "sc-pairs" {
			keep = append(keep, s)
		}
	}
	if len(keep) != 2 {
		t.Fatalf("quick core has no batch-fairness and sc-pairs: %v", p.Presets())
	}
	p.Sweeps = keep
	return p
}
