package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu"
	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// sweepRunner gives the sweep its runner: emu.Run for the command, a fake
// in the command's tests.
type sweepRunner func(e *env, verbose bool) (sweep.Runner, error)

func newSweepCmd(e *env) *cobra.Command { return sweepCommand(e, emuRunner) }

// emuRunner runs each point with emu.Run. Warnings (and, with --verbose,
// the live status lines) go to stderr prefixed with the run's id.
func emuRunner(e *env, verbose bool) (sweep.Runner, error) {
	return func(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
		log := &prefixWriter{w: e.stderr, prefix: "  " + filepath.Base(out) + ": "}
		defer log.Flush()
		o := emu.RunOptions{Out: out, Log: log}
		if verbose {
			o.Status = log
		}
		return emu.Run(ctx, cfg, o)
	}, nil
}

type sweepFlags struct {
	sf          scenarioFlags
	vary        []string
	grid        bool
	repeat      int
	out         string
	preset      string
	listPresets bool
	shard       string
	dryRun      bool
	force       bool
	verbose     bool
	keepDeg     bool
	exec        execFlags
}

func sweepCommand(e *env, newRunner sweepRunner) *cobra.Command {
	var f sweepFlags
	c := &cobra.Command{
		Use:         "sweep",
		Annotations: needsRoot("dry-run", "list-presets"),
		Short:       "Vary parameters, repeat each point, aggregate mean, sd and 95 % CI",
		Long: `sweep runs one experiment many times. By default each --vary key's values are
tried in turn while every other parameter stays at the base configuration
(the paper's method; points that resolve to the same configuration are run
once); --grid runs the cross product instead. Every point runs --repeat
times with its own seed, derived from --seed, the point and the repeat, and
recorded. Every point's configuration is resolved before the first run: a
bad value stops the sweep naming the key.

  emu sweep --vary dc.batch=25,50,100,150,300,500 --repeat 10 --set link.trace=none
  emu sweep --vary link.bw_ratio+dc.split=1:1,2:1,3:1      # split follows the ratio
  emu sweep --preset batch --repeat 3 --set flow.size=10MB # a shorter Fig. 4a
  emu sweep --list-presets

--out (default results/sweep-<UTC time>-<name>) receives plan.json, one run
directory per point and repeat under runs/, sweep.csv, runs.csv (every
run's status and metrics: the record, which stands in for run directories
deleted since), figures/ and a self-contained report.html
(docs/results.md). Rerunning the same command with the same --out resumes:
runs that ended ok are kept, the others are redone. The first Ctrl-C finishes the current run and stops (results so far
are still aggregated); a second one interrupts it.

--jobs N runs up to N runs at once, each in its own namespaces with the
seed it has one at a time, so the results do not depend on N; --jobs auto
runs the first run alone, measures how much CPU it used and fits as many
runs as 90 % of the cores take, and runs fewer at once when runs keep
coming back degraded (more than one, and more than one in five at that
concurrency). A run whose emulation fell behind (summary.json's fidelity
says degraded) is run again, --reruns times at most (default once; with
auto, beside fewer runs than the attempt before), every attempt kept under
degraded/; if it is degraded each time it is counted in sweep.csv's
runs_degraded and left out of the statistics (--keep-degraded keeps it).
--dry-run and the first progress line print the expected wall time.

Each run's qlog files are gzipped once it ended (--qlogs gzip, about 17
times smaller; emu analyze reads them as they are), or kept or dropped. No
run starts with less than 6 GB free where the sweep writes: it stops, and
the same command resumes once there is room (docs/sweeps.md).

--shard i/n runs a deterministic part of the plan, for Slurm job arrays,
Kubernetes indexed jobs or GNU parallel; emu sweep merge gathers the shards
(docs/sweeps.md). The command fails if any run failed; failed runs are
recorded and left out of the statistics.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.listPresets {
				return sweep.WritePresets(e.stdout)
			}
			plan, err := f.plan(cmd)
			if err != nil {
				return err
			}
			shard := sweep.Shard{}
			if f.shard != "" {
				if shard, err = sweep.ParseShard(f.shard); err != nil {
					return usageError{err}
				}
			}
			out := f.out
			if out == "" {
				out = filepath.Join("results", "sweep-"+outStamp()+"-"+sweepName(plan))
			}
			o, err := f.exec.options(out)
			if err != nil {
				return err
			}
			if f.dryRun {
				if err := sweep.WritePlan(e.stdout, plan, shard); err != nil {
					return err
				}
				writeEstimate(e.stdout, plan, shard, o.Jobs)
				fmt.Fprintln(e.stdout, sweepDiskLine(plan, shard, o.Qlogs, out))
				return nil
			}
			if o.Runner, err = newRunner(e, f.verbose); err != nil {
				return err
			}
			o.Shard = shard
			return runSweep(e, plan, out, o, sweepRunOptions{force: f.force, keepDegraded: f.keepDeg})
		},
	}
	f.sf.register(c, true)
	c.Flags().Lookup("seed").Usage = fmt.Sprintf("base seed every run's seed is derived from (0 = the default, %d)", sweep.DefaultSeed)
	c.Flags().StringArrayVar(&f.vary, "vary", nil, "vary a key: KEY=V1,V2,… or KEY1+KEY2=V1,V2,… (repeatable; replaces a preset's axes)")
	c.Flags().BoolVar(&f.grid, "grid", false, "run the cross product of the --vary axes instead of one axis at a time")
	c.Flags().IntVar(&f.repeat, "repeat", sweep.DefaultRepeat, "runs per point (a preset has its own default)")
	c.Flags().StringVarP(&f.out, "out", "o", "", "sweep directory (default results/sweep-<UTC time>-<name>); the same --out resumes")
	c.Flags().StringVar(&f.preset, "preset", "", "start from a preset (see --list-presets); --set, --vary, --repeat and --grid adjust it")
	c.Flags().BoolVar(&f.listPresets, "list-presets", false, "list the presets with the figures they reproduce")
	c.Flags().StringVar(&f.shard, "shard", "", "run shard i of n of the plan (i from 1 to n)")
	c.Flags().BoolVar(&f.dryRun, "dry-run", false, "resolve and print the plan, run nothing")
	c.Flags().BoolVar(&f.force, "force", false, "replace the plan of an existing --out (runs that no longer match are redone)")
	c.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "print each run's live status lines")
	f.exec.register(c, "runs at once: a number, or auto (from the cores and the first run's CPU)")
	c.Flags().BoolVar(&f.keepDeg, "keep-degraded", false, "count runs whose emulation was degraded in the statistics")
	c.AddCommand(newSweepMergeCmd(e))
	return c
}

// plan builds the sweep's plan from the preset and the flags; every error
// is a usage error (exit status 2) naming the key.
func (f *sweepFlags) plan(cmd *cobra.Command) (*results.Plan, error) {
	spec := sweep.Spec{Scenario: f.sf.scenario, Repeat: f.repeat}
	if f.preset != "" {
		pr, ok := sweep.LookupPreset(f.preset)
		if !ok {
			return nil, usagef("--preset %q: no such preset (one of %s)", f.preset, strings.Join(sweep.PresetNames(), ", "))
		}
		var err error
		if spec, err = pr.Spec(); err != nil {
			return nil, err
		}
		if cmd.Flags().Changed("scenario") {
			spec.Scenario = f.sf.scenario
		}
		if cmd.Flags().Changed("repeat") {
			spec.Repeat = f.repeat
		}
	}
	if cmd.Flags().Changed("grid") {
		spec.Grid = f.grid
	}
	// --seed is the base seed here, not run.seed.
	spec.Seed = f.sf.seed
	sf := f.sf
	sf.seed = 0
	sets, err := sf.settings()
	if err != nil {
		return nil, err
	}
	spec.Settings = append(spec.Settings, sets...)
	if len(f.vary) > 0 {
		spec.Axes = nil
		for _, v := range f.vary {
			a, err := sweep.ParseVary(v)
			if err != nil {
				return nil, usageError{err}
			}
			spec.Axes = append(spec.Axes, a)
		}
	}
	p, err := sweep.NewPlan(spec)
	if err != nil {
		return nil, usageError{err}
	}
	return p, nil
}

// sweepName names the default output directory: the preset, else the
// varied keys.
func sweepName(p *results.Plan) string {
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

// writeEstimate prints the dry run's expected wall time.
func writeEstimate(w io.Writer, plan *results.Plan, shard sweep.Shard, jobs sweep.Jobs) {
	runs := shard.Runs(plan)
	if jobs.Auto {
		fmt.Fprintf(w, "expected wall time (--jobs auto decides after the first run, on %d cores): %s\n",
			runtime.NumCPU(), sweep.WallTimes(plan, runs, runtime.NumCPU()))
	} else {
		at := "1 run at once"
		if jobs.N > 1 {
			at = fmt.Sprintf("%d runs at once", jobs.N)
		}
		fmt.Fprintf(w, "expected wall time: %s (%s)\n", sweep.EstimateWall(plan, runs, sweep.Schedule{Jobs: jobs.N}).Round(time.Second), at)
	}
	fmt.Fprintf(w, "(%s)\n", sweep.ModelText())
}

// sweepDiskLine is the expected disk use of the shard's runs that out does
// not hold done yet.
func sweepDiskLine(plan *results.Plan, shard sweep.Shard, q results.QlogPolicy, out string) string {
	left := sweep.Remaining(out, plan, shard.Runs(plan))
	return diskLine(func(q results.QlogPolicy) float64 { return sweep.EstimateDisk(plan, left, q) }, q, out)
}

// sweepRunOptions are the flags of runSweep beyond the sweep's options.
type sweepRunOptions struct {
	force        bool
	keepDegraded bool
}

// runSweep executes the plan (or its shard) in out and aggregates it. The
// first interrupt (which also cancels e.ctx) lets the running runs finish;
// a second one interrupts them.
func runSweep(e *env, plan *results.Plan, out string, so sweep.Options, o sweepRunOptions) error {
	note, err := sweep.Prepare(out, plan, o.force)
	if err != nil {
		if errors.Is(err, sweep.ErrPlanChanged) {
			return usageError{err}
		}
		return err
	}
	fmt.Fprintf(e.stderr, "sweep: writing to %s (the same command with --out %s resumes it)\n", out, out)
	if note != "" {
		fmt.Fprintf(e.stderr, "sweep: %s\n", note)
	}
	fmt.Fprintf(e.stderr, "sweep: %s\n", sweepDiskLine(plan, so.Shard, so.Qlogs, out))
	stop, runCtx, release := twoStageInterrupt(e, "sweep")
	defer release()
	so.Progress, so.Stop = e.stderr, stop
	outcome, execErr := sweep.Execute(runCtx, out, plan, so)
	table, finErr := sweep.FinishWith(out, sweep.AggregateOptions{KeepDegraded: o.keepDegraded})
	if table != nil {
		sweep.WriteSummary(e.stdout, table)
		fmt.Fprintf(e.stdout, "\nresults: %s, %s, %s/\n", filepath.Join(out, results.CSVFile), filepath.Join(out, results.ReportFile), filepath.Join(out, results.FiguresDir))
	}
	if execErr != nil {
		return errors.Join(execErr, finErr)
	}
	if finErr != nil {
		return fmt.Errorf("aggregate %s: %w", out, finErr)
	}
	for _, fl := range outcome.Failures {
		fmt.Fprintf(e.stderr, "sweep: run %s %s: %s\n", fl.Run, fl.Status, fl.Error)
	}
	if n := len(outcome.Degraded); n > 0 {
		what := "left out of the statistics (--keep-degraded keeps them)"
		if o.keepDegraded {
			what = "kept in the statistics (--keep-degraded)"
		}
		fmt.Fprintf(e.stderr, "sweep: %d runs were degraded in every attempt (1 + --reruns %d), %s: %s\n", n, *so.Reruns, what, abbreviate(outcome.Degraded, 12))
	}
	done := outcome.Skipped + outcome.OK + len(outcome.Failures)
	switch {
	case outcome.GaveUp != "":
		return fmt.Errorf("gave up: %s", outcome.GaveUp)
	case outcome.DiskFull != "":
		return fmt.Errorf("stopped after %d of %d runs: %s; free some space and the same command with --out %s resumes", done, outcome.Runs, outcome.DiskFull, out)
	case outcome.Stopped || outcome.Interrupted:
		return fmt.Errorf("stopped after %d of %d runs; the same command with --out %s resumes", done, outcome.Runs, out)
	case len(outcome.Failures) > 0:
		return fmt.Errorf("%d of %d runs failed and are left out of the statistics; the same command with --out %s retries them", len(outcome.Failures), outcome.Runs, out)
	}
	return nil
}

func newSweepMergeCmd(e *env) *cobra.Command {
	var out string
	var force, keepDegraded bool
	c := &cobra.Command{
		Use:   "merge DIR... --out DIR",
		Short: "Gather the shards of a sweep and aggregate them",
		Long: `merge checks that the sweep directories hold the same plan (the shards of one
sweep, run with --shard on different machines), copies each run from the
first directory that completed it into --out (hard links where possible),
and writes sweep.csv, runs.csv, figures/ and report.html there (shards'
records are not merged: only their run directories). --out may be one of
the inputs. Runs that no shard has done yet are reported; merge again when
they are. Fails if any run failed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if out == "" {
				return usagef("sweep merge: --out is required")
			}
			res, err := sweep.Merge(out, dirs, force)
			if err != nil {
				if errors.Is(err, sweep.ErrPlanChanged) {
					return usageError{err}
				}
				return err
			}
			fmt.Fprintf(e.stderr, "merge: %d runs copied, %d already in %s\n", res.Copied, res.Present, out)
			for _, n := range res.Notes {
				fmt.Fprintf(e.stderr, "merge: %s\n", n)
			}
			if len(res.Duplicates) > 0 {
				fmt.Fprintf(e.stderr, "merge: %d runs were done by more than one shard (took the first): %s\n", len(res.Duplicates), strings.Join(res.Duplicates, " "))
			}
			if len(res.Missing) > 0 {
				fmt.Fprintf(e.stderr, "merge: %d runs not done by any shard yet: %s\n", len(res.Missing), abbreviate(res.Missing, 12))
			}
			t, err := sweep.FinishWith(out, sweep.AggregateOptions{KeepDegraded: keepDegraded})
			if err != nil {
				return fmt.Errorf("aggregate %s: %w", out, err)
			}
			sweep.WriteSummary(e.stdout, t)
			fmt.Fprintf(e.stdout, "\nresults: %s, %s\n", filepath.Join(out, results.CSVFile), filepath.Join(out, results.ReportFile))
			if len(res.Failed) > 0 {
				return fmt.Errorf("%d runs failed in every shard that did them: %s", len(res.Failed), abbreviate(res.Failed, 12))
			}
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "sweep directory to merge into (required)")
	c.Flags().BoolVar(&force, "force", false, "replace a different plan in --out")
	c.Flags().BoolVar(&keepDegraded, "keep-degraded", false, "count runs whose emulation was degraded in the statistics")
	return c
}

// prefixWriter writes complete lines to w, each with a prefix.
type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    bytes.Buffer
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf.Write(b)
	for {
		line, err := p.buf.ReadBytes('\n')
		if err != nil {
			p.buf.Write(line) // incomplete: keep for the next write
			return len(b), nil
		}
		if _, err := fmt.Fprintf(p.w, "%s%s", p.prefix, line); err != nil {
			return len(b), err
		}
	}
}

// Flush writes a last incomplete line.
func (p *prefixWriter) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.buf.Len() > 0 {
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.buf.String())
		p.buf.Reset()
	}
}

func abbreviate(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, " ")
	}
	return strings.Join(ids[:n], " ") + fmt.Sprintf(" … (%d more)", len(ids)-n)
}
