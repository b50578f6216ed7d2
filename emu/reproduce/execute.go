package reproduce

import (
	"context"
	"errors"
	"fmt"

	"github.com/dc-emu/emu/emu/sweep"
)

// Outcome is what Execute did, preset by preset.
type Outcome struct {
	Sweeps []SweepOutcome
	// Stopped and Interrupted say that Stop was closed or the context
	// ended before every preset was done.
	Stopped, Interrupted bool
	// GaveUp says why a preset's sweep stopped after repeated failures
	// (a broken setup fails every run alike); no later preset ran.
	GaveUp string
	// DiskFull says why a preset's sweep stopped for want of disk space
	// (sweep.Options.MinFree); no later preset ran.
	DiskFull string
}

// SweepOutcome is one preset's sweep as Execute left it.
type SweepOutcome struct {
	Preset string
	*sweep.Outcome
}

// Complete reports whether every run of every preset ended ok.
func (o *Outcome) Complete(p *Plan) bool {
	if len(o.Sweeps) != len(p.Sweeps) {
		return false
	}
	for _, s := range o.Sweeps {
		if !s.Outcome.Complete() {
			return false
		}
	}
	return true
}

// Failures counts the runs that failed in this session.
func (o *Outcome) Failures() int {
	n := 0
	for _, s := range o.Sweeps {
		n += len(s.Outcome.Failures)
	}
	return n
}

// Execute runs the presets' sweeps of p one after the other, each in its
// directory under root (Sweep.Dir), resuming what an earlier attempt left:
// runs that ended ok are kept. After each preset it aggregates the sweep
// (sweep.csv, figures/, report.html of the preset). It stops between runs
// when o.Stop is closed, and after a run interrupted by ctx. A preset
// directory that holds another plan (a different scale, or a changed
// preset) fails Execute with sweep.ErrPlanChanged before that preset runs.
//
// Presets held by Plan.Only are passed over. Every preset's sweep runs with o (its Progress also gets a line per
// preset); o.Shard must be the zero Shard, since a reproduction runs whole
// presets.
func Execute(ctx context.Context, root string, p *Plan, o sweep.Options) (*Outcome, error) {
	if o.Runner == nil {
		return nil, errors.New("reproduce: no runner")
	}
	if o.Shard != (sweep.Shard{}) {
		return nil, errors.New("reproduce: a reproduction runs whole presets, not a shard")
	}
	out := &Outcome{}
	for i := range p.Sweeps {
		s := &p.Sweeps[i]
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
		if s.Held {
			continue
		}
		dir := s.Dir(root)
		note, err := sweep.Prepare(dir, s.Plan, false)
		if err != nil {
			return out, fmt.Errorf("reproduce: preset %s: %w", s.Preset.Name, err)
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "reproduce: preset %d/%d %s (%s) in %s\n", i+1, len(p.Sweeps), s.Preset.Name, s.Preset.Figure, dir)
			if note != "" {
				fmt.Fprintf(o.Progress, "reproduce: %s\n", note)
			}
		}
		so, err := sweep.Execute(ctx, dir, s.Plan, o)
		if so != nil {
			out.Sweeps = append(out.Sweeps, SweepOutcome{Preset: s.Preset.Name, Outcome: so})
		}
		if _, finErr := sweep.Finish(dir, sweep.AggregateOptions{Studies: studies()}); err != nil || finErr != nil {
			if finErr != nil {
				finErr = fmt.Errorf("reproduce: aggregate %s: %w", dir, finErr)
			}
			return out, errors.Join(err, finErr)
		}
		switch {
		case so.GaveUp != "":
			out.GaveUp = fmt.Sprintf("preset %s: %s", s.Preset.Name, so.GaveUp)
			return out, nil
		case so.DiskFull != "":
			out.DiskFull = fmt.Sprintf("preset %s: %s", s.Preset.Name, so.DiskFull)
			return out, nil
		case so.Stopped:
			out.Stopped = true
			return out, nil
		case so.Interrupted:
			out.Interrupted = true
			return out, nil
		}
	}
	return out, nil
}
