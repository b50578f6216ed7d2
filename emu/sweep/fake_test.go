package sweep

import (
	"context"
	"encoding/json"
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
// summary.json has goodput values that are a known function of the
// configuration and the seed, so tests can recompute what the sweep must
// report. fail decides which runs fail (nil: none).
type fakeRunner struct {
	mu    sync.Mutex
	calls []string // run directory names, in call order
	fail  func(cfg config.Config) bool
	// during is called while the run is "running", e.g. to press Ctrl-C.
	during func(ctx context.Context)
}

// fakeGoodput is flow i's goodput in a run: it falls with the batch size
// and varies with the seed.
func fakeGoodput(cfg config.Config, i int) float64 {
	return 40 - float64(cfg.DC.Batch)/25 + float64(cfg.Seed%997)/99.7 - float64(i)*3
}

func (f *fakeRunner) run(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
	f.mu.Lock()
	f.calls = append(f.calls, filepath.Base(out))
	f.mu.Unlock()
	if f.during != nil {
		f.during(ctx)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	s := &results.Summary{
		Run: filepath.Base(out), Scenario: cfg.Scenario, Status: results.StatusOK, Seed: cfg.Seed,
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), DurationS: 12.5, Config: config.Values(&cfg),
	}
	var gp []float64
	for i, fl := range cfg.Flows {
		g := fakeGoodput(cfg, i)
		gp = append(gp, g)
		s.Flows = append(s.Flows, results.FlowResult{Name: fl.Name, Path: fl.Path, Proto: fl.Proto, GoodputMbps: g, Complete: true})
	}
	s.JFI = analysis.JFI(gp)
	for i, l := range cfg.Links {
		name := []string{"link1", "link2"}[i]
		s.Links = append(s.Links,
			results.LinkResult{Name: name, Dir: "down", CapacityMbps: l.Down.Rate / 1e6},
			results.LinkResult{Name: name, Dir: "up", CapacityMbps: l.Up.Rate / 1e6})
	}
	var err error
	switch {
	case ctx.Err() != nil:
		s.Status, s.Error = results.StatusInterrupted, "run interrupted"
		err = ctx.Err()
	case f.fail != nil && f.fail(cfg):
		s.Status, s.Error = results.StatusFailed, "flow dc: client exited"
		err = errFake
	}
	b, _ := json.MarshalIndent(s, "", "  ")
	if werr := os.WriteFile(filepath.Join(out, "summary.json"), b, 0o644); werr != nil {
		return nil, werr
	}
	return s, err
}

func (f *fakeRunner) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

type fakeErr string

func (e fakeErr) Error() string { return string(e) }

const errFake = fakeErr("flow dc: client exited")

// testPlan resolves a spec or fails the test.
func testPlan(t *testing.T, s Spec) *results.Plan {
	t.Helper()
	if s.Scenario == "" {
		s.Scenario = "throughput"
	}
	if s.Repeat == 0 {
		s.Repeat = 3
	}
	p, err := NewPlan(s)
	if err != nil {
		t.Fatalf("NewPlan: %v", err)
	}
	return p
}

func axes(t *testing.T, vs ...string) []results.Axis {
	t.Helper()
	var out []results.Axis
	for _, v := range vs {
		a, err := ParseVary(v)
		if err != nil {
			t.Fatalf("ParseVary(%q): %v", v, err)
		}
		out = append(out, a)
	}
	return out
}
