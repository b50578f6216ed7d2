package sweeptest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/stats"
)

// FailError is the default error of a run Runner.Fail picks.
const FailError = "flow dc: client exited"

type failed string

func (e failed) Error() string { return string(e) }

// Runner stands in for emu.Run (its Run is a sweep.Runner). Each run
// writes out/summary.json: status ok, the configuration's flows with
// Goodput's values, complete, and their JFI; interrupted when ctx is
// done; failed where Fail says so. The zero Runner is ready to use.
type Runner struct {
	// Goodput is flow i's goodput in a run of cfg, in Mbit/s (nil:
	// Goodput, the package function).
	Goodput func(cfg config.Config, i int) float64
	// DurationS is every run's duration_s (0: 12.5).
	DurationS float64
	// Links gives the link results of a run of cfg (nil: Capacities).
	Links func(cfg config.Config) []results.LinkResult
	// Edit, if set, changes each summary before it is written (more
	// figures than goodput).
	Edit func(cfg config.Config, s *results.Summary)
	// Fail picks the runs that fail, by configuration or by run (the
	// directory's base name, e.g. p03-r2); nil: none. FailError is their
	// error and the summary's (empty: the constant FailError).
	Fail      func(cfg config.Config, run string) bool
	FailError string
	// During, if set, is called as the nth run (from 1) starts, before it
	// writes anything: to press Ctrl-C or move a clock.
	During func(n int, run string)
	// Name is what Calls records of a run's directory (nil: its base
	// name).
	Name func(out string) string

	mu    sync.Mutex
	calls []string
}

// Run does one fake run of cfg into the directory out.
func (f *Runner) Run(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
	run, name := filepath.Base(out), filepath.Base(out)
	if f.Name != nil {
		name = f.Name(out)
	}
	f.mu.Lock()
	f.calls = append(f.calls, name)
	n := len(f.calls)
	f.mu.Unlock()
	if f.During != nil {
		f.During(n, run)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	goodput, dur, links := f.Goodput, f.DurationS, f.Links
	if goodput == nil {
		goodput = Goodput
	}
	if dur == 0 {
		dur = 12.5
	}
	if links == nil {
		links = Capacities
	}
	s := &results.Summary{
		Run: run, Scenario: cfg.Scenario, Status: results.StatusOK, Seed: cfg.Seed,
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), DurationS: dur, Config: config.Values(&cfg),
	}
	var gp []float64
	for i, fl := range cfg.Flows {
		g := goodput(cfg, i)
		gp = append(gp, g)
		s.Flows = append(s.Flows, results.FlowResult{Name: fl.Name, Path: fl.Path, Proto: fl.Proto, GoodputMbps: g, Complete: true})
	}
	s.JFI = stats.JFI(gp)
	s.Links = links(cfg)
	var err error
	switch {
	case ctx.Err() != nil:
		s.Status, s.Error = results.StatusInterrupted, "run interrupted"
		err = ctx.Err()
	case f.Fail != nil && f.Fail(cfg, run):
		s.Status, s.Error = results.StatusFailed, FailError
		if f.FailError != "" {
			s.Error = f.FailError
		}
		err = failed(s.Error)
	}
	if f.Edit != nil {
		f.Edit(cfg, s)
	}
	if werr := results.RunDir(out).WriteSummary(s); werr != nil {
		return nil, werr
	}
	return s, err
}

// Calls are the runs asked for so far, in call order, as Name records
// them.
func (f *Runner) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// Goodput is the default goodput of flow i in a run of cfg: it falls with
// the batch size and varies with the seed.
func Goodput(cfg config.Config, i int) float64 {
	return 40 - float64(cfg.DC.Sched.Batch)/25 + float64(cfg.Seed%997)/99.7 - float64(i)*3
}

// Capacities are the default link results: each link's configured rate,
// down and up, as capacity_mbps.
func Capacities(cfg config.Config) []results.LinkResult {
	var ls []results.LinkResult
	for i, l := range cfg.Links {
		name := fmt.Sprintf("link%d", i+1)
		ls = append(ls,
			results.LinkResult{Name: name, Dir: "down", CapacityMbps: l.Down.Rate / 1e6},
			results.LinkResult{Name: name, Dir: "up", CapacityMbps: l.Up.Rate / 1e6})
	}
	return ls
}
