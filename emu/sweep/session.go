package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/dc-emu/emu/emu/results"
)

// A Session drives a Job in its directory: what `emu sweep` and `emu
// reproduce` do once their flags are read, so that the two commands plan,
// resume, report and end alike.
//
// Its stages: DryRun only writes the job's plan (Job.WritePlan). Run
// prepares the directory (Job.Prepare), says where it writes and how to
// resume, executes the runs the directory does not hold done (Job.Execute;
// closing Options.Stop lets the running runs finish, ending the context
// interrupts them), writes the job's report from whatever is done, after
// a stop too (Job.Report), and returns how the runs ended as its error
// (Ending.Err). A directory that holds another plan stops the session
// before anything runs, with an error wrapping ErrPlanChanged.
type Session struct {
	// Name prefixes the lines the session writes ("sweep", "reproduce").
	Name string
	// Dir is the job's directory; a session on the same Dir resumes it.
	Dir string
	// Out receives the plan of a dry run and the report's summary;
	// Options.Progress the plan, notes and progress of a run (nil: none).
	Out     io.Writer
	Options Options
}

// A Job is what a Session runs: one sweep (PlanJob), or a reproduction's
// sweeps one after the other.
type Job interface {
	// WritePlan writes what the job will do in dir with o: its plan, the
	// expected wall time and disk use.
	WritePlan(w io.Writer, dir string, o Options) error
	// Prepare readies dir for the runs. It may write to log what comes
	// before the session says where it writes (a reproduction's plan), and
	// returns notes for after that line (a sweep's resumption and disk use).
	Prepare(log io.Writer, dir string, o Options) (notes []string, err error)
	// Execute runs what dir does not hold done.
	Execute(ctx context.Context, dir string, o Options) (Ending, error)
	// Report writes the job's results from what dir holds, a part of them
	// included, and their summary to w.
	Report(w io.Writer, dir string) error
}

// Ending is how a session's runs ended.
type Ending struct {
	// Runs and Done count the runs the session had to do and those done,
	// whether now or before; Runs 0 means not counted (a reproduction's
	// presets are several sweeps).
	Runs, Done int
	// Failed counts the runs done now that did not end ok.
	Failed int
	// Stopped: Stop was closed or the context ended before all were done.
	Stopped bool
	// GaveUp and DiskFull say why the runs stopped early: repeated
	// failures, or too little free space (Options.MinFree).
	GaveUp, DiskFull string
	// Notes are written once the report is: the failed runs, the runs
	// degraded in every attempt.
	Notes []string
}

// Err is the session's error for e, naming dir (the --out that resumes
// it), or nil when every run ended ok.
func (e Ending) Err(dir string) error {
	after, of := "", ""
	if e.Runs > 0 {
		after, of = fmt.Sprintf(" after %d of %d runs", e.Done, e.Runs), fmt.Sprintf(" of %d", e.Runs)
	}
	switch {
	case e.GaveUp != "":
		return fmt.Errorf("gave up: %s", e.GaveUp)
	case e.DiskFull != "":
		return fmt.Errorf("stopped%s: %s; free some space and the same command with --out %s resumes", after, e.DiskFull, dir)
	case e.Stopped:
		return fmt.Errorf("stopped%s; the same command with --out %s resumes", after, dir)
	case e.Failed > 0:
		return fmt.Errorf("%d%s runs failed and are left out of the statistics; the same command with --out %s retries them", e.Failed, of, dir)
	}
	return nil
}

// DryRun writes the job's plan to Out and runs nothing.
func (s *Session) DryRun(j Job) error { return j.WritePlan(s.Out, s.Dir, s.Options) }

// Run runs the job in Dir (see Session for the stages).
func (s *Session) Run(ctx context.Context, j Job) error {
	log := s.Options.Progress
	if log == nil {
		log = io.Discard
	}
	notes, err := j.Prepare(log, s.Dir, s.Options)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "%s: writing to %s (the same command with --out %s resumes it)\n", s.Name, s.Dir, s.Dir)
	for _, n := range notes {
		fmt.Fprintf(log, "%s: %s\n", s.Name, n)
	}
	end, execErr := j.Execute(ctx, s.Dir, s.Options)
	if errors.Is(execErr, ErrPlanChanged) {
		return execErr
	}
	if repErr := j.Report(s.Out, s.Dir); execErr != nil || repErr != nil {
		return errors.Join(execErr, repErr)
	}
	for _, n := range end.Notes {
		fmt.Fprintf(log, "%s: %s\n", s.Name, n)
	}
	return end.Err(s.Dir)
}

// DiskLine says in a line what est, an estimate by qlog policy, expects on
// disk with o.Qlogs and the others, beside the free space o.FreeSpace
// reports (unknown without it).
func (o *Options) DiskLine(est func(results.QlogPolicy) float64) string {
	free := int64(-1)
	if o.FreeSpace != nil {
		if b, err := o.FreeSpace(); err == nil {
			free = int64(b)
		}
	}
	return DiskText(est, o.Qlogs, free)
}

// EstimateJobs is how many runs at once an estimate assumes: Jobs.N, or
// for auto one per core (what auto starts from on a quiet machine before
// it measures a run).
func (o *Options) EstimateJobs() int {
	if o.Jobs.Auto {
		return o.cores()
	}
	return o.Jobs.N
}

// cores is Cores, or the machine's when unset.
func (o *Options) cores() int {
	if o.Cores > 0 {
		return o.Cores
	}
	return runtime.NumCPU()
}

// abbreviate joins the first n ids and says how many more there are.
func abbreviate(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, " ")
	}
	return strings.Join(ids[:n], " ") + fmt.Sprintf(" … (%d more)", len(ids)-n)
}
