package sweep

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

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
	dir := results.RunDir(runDir)
	onDisk, err := dir.ReadSummary()
	if err == nil && onDisk.Status == status {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		msg = fmt.Sprintf("%s (and its %s is unreadable: %v)", msg, results.SummaryFile, err)
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
	if err := dir.WriteSummary(&rec); err != nil {
		return fmt.Errorf("sweep: record run %s: %w", r.ID, err)
	}
	return nil
}

// okRun reads the run directory runDir and reports whether it holds run r
// of plan p (its seed and its point's configuration) with status ok.
func okRun(runDir string, p *results.Plan, r results.Run) (*results.Summary, bool) {
	sum, err := results.ReadSummary(runDir)
	if err != nil || sum.Status != results.StatusOK || sum.Seed != r.Seed || !configMatches(p, r, sum.Config) {
		return nil, false
	}
	return sum, true
}

// configMatches compares a run's recorded configuration with the plan's,
// key by key where both have the key, fidelity thresholds aside (a run
// keeps the verdict it was given).
func configMatches(p *results.Plan, r results.Run, got map[string]string) bool {
	pt, ok := p.Point(r.Point)
	if !ok {
		return false
	}
	for k, v := range got {
		if config.IsThreshold(k) {
			continue
		}
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
