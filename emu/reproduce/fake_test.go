package reproduce

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

// fakeRunner stands in for emu.Run: it writes a run directory whose
// summary.json has goodput that follows from the configuration (DC lower
// with a larger batch, shares by link rate) and the seed. during is called
// as each run starts, e.g. to press Ctrl-C.
type fakeRunner struct {
	mu     sync.Mutex
	calls  []string // preset/run, in call order
	during func(n int)
}

func (f *fakeRunner) run(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
	f.mu.Lock()
	f.calls = append(f.calls, filepath.Base(filepath.Dir(filepath.Dir(out)))+"/"+filepath.Base(out))
	n := len(f.calls)
	f.mu.Unlock()
	if f.during != nil {
		f.during(n)
	}
	s := &results.Summary{Run: filepath.Base(out), Scenario: cfg.Scenario, Status: results.StatusOK, Seed: cfg.Seed,
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), DurationS: 60, Config: config.Values(&cfg)}
	var gp []float64
	for i, fl := range cfg.Flows {
		g := 10 - float64(cfg.DC.Batch)/100 + float64(cfg.Seed%97)/97 + float64(i)
		gp = append(gp, g)
		s.Flows = append(s.Flows, results.FlowResult{Name: fl.Name, Path: fl.Path, Proto: fl.Proto, GoodputMbps: g, Complete: true})
	}
	s.JFI = analysis.JFI(gp)
	for i, l := range cfg.Links {
		name := []string{"link1", "link2"}[i]
		s.Links = append(s.Links, results.LinkResult{Name: name, Dir: "down", CapacityMbps: l.Down.Rate / 1e6, ThroughputMbps: 0.9 * l.Down.Rate / 1e6})
	}
	if ctx.Err() != nil {
		s.Status, s.Error = results.StatusInterrupted, "run interrupted"
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	if err := results.WriteJSON(filepath.Join(out, results.SummaryFile), s); err != nil {
		return nil, err
	}
	return s, ctx.Err()
}

func (f *fakeRunner) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
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
