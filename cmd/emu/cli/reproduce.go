package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/host"
	"github.com/dc-emu/emu/emu/reproduce"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

func newReproduceCmd(e *env) *cobra.Command { return reproduceCommand(e, emuRunner) }

type reproduceFlags struct {
	scale   string
	parts   []string
	presets []string
	out     string
	dryRun  bool
	verbose bool
	exec    execFlags
}

func reproduceCommand(e *env, newRunner sweepRunner) *cobra.Command {
	var f reproduceFlags
	c := &cobra.Command{
		Use:         "reproduce",
		Annotations: needsRoot("dry-run"),
		Short:       "Run the paper's figures as sweeps and judge its findings in one report",
		Long: `reproduce runs the presets that reproduce "QUIC Throughput and Fairness over
Dual Connectivity" (docs/reproduce.md) as sweeps, one after the other, each
in its own directory under --out, then judges every finding of the paper
that reads them and writes DIR/report.html (the paper's text, emu's figures
and tables, each verdict with its rule and numbers) and DIR/reproduce.json.

  emu reproduce --dry-run                          # the plan and its wall time
  emu reproduce                                    # core figures, quick scale
  emu reproduce --scale paper --parts core,queue,jitter,ngtcp2,trace

--scale quick runs 3 repeats, fairness runs of 60 s and downloads of 20 MB;
paper runs the paper's 10 repeats, 180 s and 100 MB. --parts picks core
(Figs. 4-11, App. A), queue (the queue-length sensitivity), jitter (the
jitter-model sensitivity), ngtcp2 (Figs. 12-19) and trace (Figs. 20-22). The plan and its expected wall time are
printed first. Rerunning with the same --out resumes: runs that ended ok are
kept, also when only each preset's plan.json and runs.csv (its record) are
left of them (docs/reproduce-quick is such a directory). The first Ctrl-C finishes the current run and stops (the report is
still written from what is done); a second one interrupts it. --jobs,
--reruns and --qlogs work as for emu sweep: each run's qlogs are gzipped
by default (the report needs only the summaries; --qlogs drop saves the
rest), and no run starts with less than 6 GB free. --presets runs only
some presets now (the short throughput ones first, say: '!*-fairness');
the others are held, and the report judges them from what is done.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(f.parts) == 0 {
				return usagef("--parts: no part given (want some of %s)", strings.Join(reproduce.AllParts(), ","))
			}
			plan, err := reproduce.NewPlan(f.scale, f.parts)
			if err != nil {
				return usageError{err}
			}
			if err := plan.Only(f.presets); err != nil {
				return usageError{fmt.Errorf("--presets: %w", err)}
			}
			out := f.out
			if out == "" {
				out = filepath.Join("results", "reproduce-"+plan.Scale.Name+"-"+outStamp())
			}
			o, err := f.exec.options(out)
			if err != nil {
				return err
			}
			if f.dryRun {
				return writeReproducePlan(e.stdout, plan, out, o)
			}
			if o.Runner, err = newRunner(e, f.verbose); err != nil {
				return err
			}
			return runReproduce(e, plan, out, o)
		},
	}
	c.Flags().StringVar(&f.scale, "scale", "quick", "quick (3 repeats, 60 s, 20 MB) or paper (10 repeats, 180 s, 100 MB)")
	c.Flags().StringSliceVar(&f.parts, "parts", reproduce.DefaultParts(), "parts of the paper: "+strings.Join(reproduce.AllParts(), ","))
	c.Flags().StringSliceVar(&f.presets, "presets", nil, "run only these presets of the parts (names or patterns, \"!\" leaves out: 'delay-ratio-*' or '!*-fairness'); the report still judges all of them from what is done")
	c.Flags().StringVarP(&f.out, "out", "o", "", "reproduction directory (default results/reproduce-<scale>-<UTC time>); the same --out resumes")
	c.Flags().BoolVar(&f.dryRun, "dry-run", false, "print the plan and its expected wall time, run nothing")
	c.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "print each run's live status lines")
	f.exec.register(c, "runs at once: a number, or auto (from the cores and the CPU a run uses; lowered when runs come back degraded)")
	return c
}

// runReproduce prints the plan, runs the presets' sweeps in out and writes
// the report, also after a stop, from whatever is done.
func runReproduce(e *env, plan *reproduce.Plan, out string, o sweep.Options) error {
	if err := writeReproducePlan(e.stderr, plan, out, o); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "reproduce: writing to %s (the same command with --out %s resumes it)\n", out, out)
	stop, runCtx, release := twoStageInterrupt(e, "reproduce")
	defer release()
	start := time.Now()
	o.Progress, o.Stop = e.stderr, stop
	outcome, execErr := reproduce.Execute(runCtx, out, plan, o)
	if errors.Is(execErr, sweep.ErrPlanChanged) {
		return usageError{fmt.Errorf("%w (a reproduction at another scale, or made by another emu? use another --out)", execErr)}
	}
	rep, repErr := reproduce.WriteReport(out, plan, reproduce.ReportOptions{
		Session: time.Since(start), EmuVersion: host.CollectVersions().Emu, Made: time.Now().UTC(),
	})
	if rep != nil {
		if err := reproduce.WriteVerdicts(e.stdout, rep); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "\nreport: %s, %s\n", filepath.Join(out, reproduce.ReportFile), filepath.Join(out, reproduce.JSONFile))
	}
	if execErr != nil || repErr != nil {
		return errors.Join(execErr, repErr)
	}
	switch {
	case outcome.GaveUp != "":
		return fmt.Errorf("gave up: %s", outcome.GaveUp)
	case outcome.DiskFull != "":
		return fmt.Errorf("stopped: %s; free some space and the same command with --out %s resumes", outcome.DiskFull, out)
	case outcome.Stopped || outcome.Interrupted:
		return fmt.Errorf("stopped; the same command with --out %s resumes", out)
	case outcome.Failures() > 0:
		return fmt.Errorf("%d runs failed and are left out of the statistics; the same command with --out %s retries them", outcome.Failures(), out)
	}
	return nil
}

// writeReproducePlan prints the plan with its wall time and disk use.
func writeReproducePlan(w io.Writer, plan *reproduce.Plan, out string, o sweep.Options) error {
	if err := reproduce.WritePlan(w, plan, out, estimateJobs(o.Jobs)); err != nil {
		return err
	}
	est := func(q results.QlogPolicy) float64 { return plan.EstimateDisk(out, q) }
	_, err := fmt.Fprintln(w, diskLine(est, o.Qlogs, out))
	return err
}

// estimateJobs is how many runs at once an estimate assumes: the number
// given, or for auto one per core (what auto starts from on a quiet
// machine before it measures a run).
func estimateJobs(j sweep.Jobs) int {
	if j.Auto {
		return runtime.NumCPU()
	}
	return j.N
}
