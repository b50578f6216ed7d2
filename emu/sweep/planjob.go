package sweep

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// PlanJob is one sweep as a Session runs it: Options.Shard's runs of Plan
// in the session's directory, aggregated with Aggregate.
type PlanJob struct {
	Plan *results.Plan
	// Force replaces the plan of a directory that holds another one (runs
	// that no longer match are redone); without it Prepare fails with
	// ErrPlanChanged.
	Force     bool
	Aggregate AggregateOptions
}

// WritePlan writes the points, the shard's runs and seeds, the expected
// wall time and the expected disk use of the runs dir does not hold done.
func (j *PlanJob) WritePlan(w io.Writer, dir string, o Options) error {
	if err := WritePlan(w, j.Plan, o.Shard); err != nil {
		return err
	}
	runs := o.Shard.Runs(j.Plan)
	if o.Jobs.Auto {
		fmt.Fprintf(w, "expected wall time (--jobs auto decides after the first run, on %d cores): %s\n",
			o.cores(), WallTimes(j.Plan, runs, o.cores()))
	} else {
		at := "1 run at once"
		if o.Jobs.N > 1 {
			at = fmt.Sprintf("%d runs at once", o.Jobs.N)
		}
		fmt.Fprintf(w, "expected wall time: %s (%s)\n", EstimateWall(j.Plan, runs, Schedule{Jobs: o.Jobs.N}).Round(time.Second), at)
	}
	fmt.Fprintf(w, "(%s)\n", ModelText())
	_, err := fmt.Fprintln(w, j.diskLine(dir, o))
	return err
}

// diskLine is the expected disk use of the shard's runs that dir does not
// hold done.
func (j *PlanJob) diskLine(dir string, o Options) string {
	left := Remaining(dir, j.Plan, o.Shard.Runs(j.Plan))
	return o.DiskLine(func(q results.QlogPolicy) float64 { return EstimateDisk(j.Plan, left, q) })
}

// Prepare writes the plan into dir (Prepare) and returns its note, if
// any, and the disk line.
func (j *PlanJob) Prepare(_ io.Writer, dir string, o Options) ([]string, error) {
	note, err := Prepare(dir, j.Plan, j.Force)
	if err != nil {
		return nil, err
	}
	var notes []string
	if note != "" {
		notes = append(notes, note)
	}
	return append(notes, j.diskLine(dir, o)), nil
}

// Execute runs the shard (Execute); the notes name each failed run and the
// runs that were degraded in every attempt.
func (j *PlanJob) Execute(ctx context.Context, dir string, o Options) (Ending, error) {
	out, err := Execute(ctx, dir, j.Plan, o)
	if err != nil {
		return Ending{}, err
	}
	e := Ending{
		Runs: out.Runs, Done: out.Skipped + out.OK + len(out.Failures), Failed: len(out.Failures),
		Stopped: out.Stopped || out.Interrupted, GaveUp: out.GaveUp, DiskFull: out.DiskFull,
	}
	for _, fl := range out.Failures {
		e.Notes = append(e.Notes, fmt.Sprintf("run %s %s: %s", fl.Run, fl.Status, fl.Error))
	}
	if n := len(out.Degraded); n > 0 {
		what := "left out of the statistics (--keep-degraded keeps them)"
		if j.Aggregate.KeepDegraded {
			what = "kept in the statistics (--keep-degraded)"
		}
		e.Notes = append(e.Notes, fmt.Sprintf("%d runs were degraded in every attempt (1 + --reruns %d), %s: %s", n, o.reruns(), what, abbreviate(out.Degraded, 12)))
	}
	return e, nil
}

// Report aggregates dir (Finish) and writes the summary table and where
// the results are.
func (j *PlanJob) Report(w io.Writer, dir string) error {
	t, err := Finish(dir, j.Aggregate)
	if t != nil {
		WriteSummary(w, t, j.Aggregate.Studies)
		fmt.Fprintf(w, "\nresults: %s, %s, %s/\n", filepath.Join(dir, results.CSVFile), filepath.Join(dir, results.ReportFile), filepath.Join(dir, results.FiguresDir))
	}
	if err != nil {
		return fmt.Errorf("aggregate %s: %w", dir, err)
	}
	return nil
}

// DirName names a sweep's default directory: the preset, else the varied
// keys ("repeat" when none).
func DirName(p *results.Plan) string {
	if p.Preset != "" {
		return p.Preset
	}
	var keys []string
	for _, a := range p.Vary {
		keys = append(keys, a.Key)
	}
	if len(keys) == 0 {
		return "repeat"
	}
	return strings.NewReplacer("+", "_", "/", "_").Replace(strings.Join(keys, "_"))
}

// Lines say what Merge did into out: runs copied and present, notes,
// runs done twice and runs no shard has done yet.
func (r *MergeResult) Lines(out string) []string {
	lines := []string{fmt.Sprintf("%d runs copied, %d already in %s", r.Copied, r.Present, out)}
	lines = append(lines, r.Notes...)
	if len(r.Duplicates) > 0 {
		lines = append(lines, fmt.Sprintf("%d runs were done by more than one shard (took the first): %s", len(r.Duplicates), strings.Join(r.Duplicates, " ")))
	}
	if len(r.Missing) > 0 {
		lines = append(lines, fmt.Sprintf("%d runs not done by any shard yet: %s", len(r.Missing), abbreviate(r.Missing, 12)))
	}
	return lines
}

// Err fails a merge some of whose runs failed in every shard that did
// them.
func (r *MergeResult) Err() error {
	if len(r.Failed) == 0 {
		return nil
	}
	return fmt.Errorf("%d runs failed in every shard that did them: %s", len(r.Failed), abbreviate(r.Failed, 12))
}
