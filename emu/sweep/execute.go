package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

// Runner does one run: it builds the network of cfg, runs its flows, writes
// a complete run directory at out (which it may create) and returns the
// run's summary, also when the run failed (status failed) or was
// interrupted because ctx ended (status interrupted). The CLI passes emu.Run.
type Runner func(ctx context.Context, cfg config.Config, out string) (*results.Summary, error)

// Options tune Execute.
type Options struct {
	// Shard selects the runs to do; the zero Shard does them all.
	Shard  Shard
	Runner Runner
	// Progress receives a line when a run starts and when it ends: runs
	// done of the shard's total, the run and its point, the ETA.
	Progress io.Writer
	// Stop, when closed, lets the current run finish and starts no other
	// (the first Ctrl-C). Cancelling Execute's context interrupts the
	// current run (the second).
	Stop <-chan struct{}
	// Now is the clock of durations and the ETA; nil means time.Now.
	Now func() time.Time
	// GiveUpAfter stops the sweep after this many failed runs in a row (a
	// broken setup fails every run alike); 0 means 5.
	GiveUpAfter int
}

// Outcome is what Execute did.
type Outcome struct {
	Runs    int // runs in the shard
	Skipped int // already complete in the directory
	OK      int // done now, status ok
	// Failures are the runs done now that did not end ok.
	Failures []Failure
	// Stopped: Stop was closed before the shard was done.
	Stopped bool
	// Interrupted: the context ended during a run.
	Interrupted bool
	// GaveUp says why Execute stopped early after repeated failures.
	GaveUp string
}

// Failure is one run that did not end ok.
type Failure struct {
	Run    string `json:"run"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

// Complete reports whether every run of the shard ended ok.
func (o *Outcome) Complete() bool {
	return o.Skipped+o.OK == o.Runs
}

// Execute runs the runs of o.Shard that dir does not already hold with
// status ok (resuming an earlier attempt), one after the other, each in
// dir/runs/<run id>. A run that fails is recorded (summary.json with status
// failed, written here if the runner did not) and the sweep goes on. p must
// come from NewPlan (it carries the resolved configurations), and dir must
// have been prepared for it (Prepare).
func Execute(ctx context.Context, dir string, p *results.Plan, o Options) (*Outcome, error) {
	if o.Runner == nil {
		return nil, errors.New("sweep: no runner")
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	giveUp := o.GiveUpAfter
	if giveUp <= 0 {
		giveUp = 5
	}
	runs := o.Shard.Runs(p)
	out := &Outcome{Runs: len(runs)}
	var todo []results.Run
	for _, r := range runs {
		if completed(dir, p, r) {
			out.Skipped++
		} else {
			todo = append(todo, r)
		}
	}
	pr := &progress{w: o.Progress, total: len(runs), done: out.Skipped}
	pr.begin(p, o.Shard, out.Skipped)
	inARow := 0
	for _, r := range todo {
		select {
		case <-o.Stop:
			out.Stopped = true
			return out, nil
		default:
		}
		if ctx.Err() != nil {
			out.Interrupted = true
			return out, nil
		}
		pt, ok := p.Point(r.Point)
		if !ok || pt.Config.Scenario == "" {
			return out, fmt.Errorf("sweep: run %s: point %s has no resolved configuration (the plan must come from NewPlan)", r.ID, r.Point)
		}
		runDir := filepath.Join(dir, results.RunsDir, r.ID)
		if err := os.RemoveAll(runDir); err != nil {
			return out, fmt.Errorf("sweep: clear %s: %w", runDir, err)
		}
		cfg := pt.Config
		cfg.Flows = slices.Clone(cfg.Flows)
		cfg.Seed = r.Seed
		pr.start(r, p.Describe(pt))
		started := now()
		sum, err := o.Runner(ctx, cfg, runDir)
		took := now().Sub(started)
		status, msg := outcomeOf(ctx, sum, err)
		if err := record(runDir, r, &cfg, sum, status, msg, started, took); err != nil {
			return out, err
		}
		pr.finish(r, status, msg, sum, took)
		if status == results.StatusOK {
			out.OK++
			inARow = 0
			continue
		}
		out.Failures = append(out.Failures, Failure{Run: r.ID, Status: status, Error: msg})
		if status == results.StatusInterrupted {
			out.Interrupted = true
			return out, nil
		}
		if inARow++; inARow >= giveUp {
			out.GaveUp = fmt.Sprintf("%d runs in a row failed, the last with: %s", inARow, msg)
			return out, nil
		}
	}
	return out, nil
}

// outcomeOf reads a run's status from what the runner returned.
func outcomeOf(ctx context.Context, sum *results.Summary, err error) (status, msg string) {
	switch {
	case sum != nil && sum.Status == results.StatusOK && err == nil:
		return results.StatusOK, ""
	case ctx.Err() != nil || errors.Is(err, context.Canceled) || (sum != nil && sum.Status == results.StatusInterrupted):
		status = results.StatusInterrupted
	default:
		status = results.StatusFailed
	}
	switch {
	case err != nil:
		msg = err.Error()
	case sum != nil && sum.Error != "":
		msg = sum.Error
	default:
		msg = "the run did not report success"
	}
	return status, msg
}

// record makes sure a run directory says how the run ended: when the
// runner wrote no summary.json (it failed before it could), or wrote one
// that contradicts the error it returned, a summary with the status and
// error is written.
func record(runDir string, r results.Run, cfg *config.Config, sum *results.Summary, status, msg string, started time.Time, took time.Duration) error {
	path := filepath.Join(runDir, "summary.json")
	onDisk, err := results.ReadSummary(runDir)
	if err == nil && onDisk.Status == status {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		msg = fmt.Sprintf("%s (and its summary.json is unreadable: %v)", msg, err)
	}
	rec := results.Summary{}
	if sum != nil {
		rec = *sum
	}
	if rec.Run == "" {
		rec.Run = r.ID
	}
	if rec.Scenario == "" {
		rec.Scenario = cfg.Scenario
	}
	if rec.Started.IsZero() {
		rec.Started = started.UTC()
		rec.DurationS = took.Seconds()
	}
	if rec.Config == nil {
		rec.Config = config.Values(cfg)
	}
	rec.Seed = r.Seed
	rec.Status, rec.Error = status, msg
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return fmt.Errorf("sweep: record run %s: %w", r.ID, err)
	}
	return results.WriteJSON(path, &rec)
}

// completed reports whether dir holds run r with status ok, its seed and
// the configuration the plan gives its point (a run left by an earlier,
// different plan does not count).
func completed(dir string, p *results.Plan, r results.Run) bool {
	sum, err := results.ReadSummary(filepath.Join(dir, results.RunsDir, r.ID))
	if err != nil || sum.Status != results.StatusOK || sum.Seed != r.Seed {
		return false
	}
	return configMatches(p, r, sum.Config)
}

// configMatches compares a run's recorded configuration with the plan's,
// key by key where both have the key.
func configMatches(p *results.Plan, r results.Run, got map[string]string) bool {
	pt, ok := p.Point(r.Point)
	if !ok {
		return false
	}
	for k, v := range got {
		want, ok := pt.Params[k]
		if !ok {
			want, ok = p.Base[k]
		}
		if k == "run.seed" {
			want, ok = fmt.Sprint(r.Seed), true
		}
		if ok && want != v && want != results.Unset {
			return false
		}
	}
	return true
}
