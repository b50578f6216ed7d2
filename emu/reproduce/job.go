package reproduce

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// Job is a reproduction as a sweep.Session runs it: the presets' sweeps of
// Plan in the session's directory, then the report.
type Job struct {
	Plan *Plan
	// EmuVersion is the emu that made the report (the CLI reads it from
	// the host; this package does not).
	EmuVersion string
	// started is when Execute began: the report's session time.
	started time.Time
}

// WritePlan writes the plan with its expected wall time (WritePlan) at
// o's runs at once, and the expected disk use of what dir does not hold
// done.
func (j *Job) WritePlan(w io.Writer, dir string, o sweep.Options) error {
	if err := WritePlan(w, j.Plan, dir, o.EstimateJobs()); err != nil {
		return err
	}
	est := func(q results.QlogPolicy) float64 { return j.Plan.EstimateDisk(dir, q) }
	_, err := fmt.Fprintln(w, o.DiskLine(est))
	return err
}

// Prepare writes the plan to log before the run begins; each preset's
// directory is prepared when its turn comes (Execute).
func (j *Job) Prepare(log io.Writer, dir string, o sweep.Options) ([]string, error) {
	return nil, j.WritePlan(log, dir, o)
}

// Execute runs the presets' sweeps (Execute). A preset directory that
// holds another plan is an error wrapping sweep.ErrPlanChanged that says
// what that most likely means.
func (j *Job) Execute(ctx context.Context, dir string, o sweep.Options) (sweep.Ending, error) {
	j.started = time.Now()
	out, err := Execute(ctx, dir, j.Plan, o)
	if errors.Is(err, sweep.ErrPlanChanged) {
		return sweep.Ending{}, fmt.Errorf("%w (a reproduction at another scale, or made by another emu? use another --out)", err)
	}
	if err != nil {
		return sweep.Ending{}, err
	}
	return sweep.Ending{
		Failed: out.Failures(), Stopped: out.Stopped || out.Interrupted,
		GaveUp: out.GaveUp, DiskFull: out.DiskFull,
	}, nil
}

// Report judges the findings from what dir holds (WriteReport) and writes
// the verdicts and where the report is.
func (j *Job) Report(w io.Writer, dir string) error {
	rep, err := WriteReport(dir, j.Plan, ReportOptions{
		Session: time.Since(j.started), EmuVersion: j.EmuVersion, Made: time.Now().UTC(),
	})
	if rep != nil {
		if err := WriteVerdicts(w, rep); err != nil {
			return err
		}
		fmt.Fprintf(w, "\nreport: %s, %s\n", filepath.Join(dir, results.ReportFile), filepath.Join(dir, results.ReproduceFile))
	}
	return err
}
