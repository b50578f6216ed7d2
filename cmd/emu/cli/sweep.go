package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

func newSweepCmd(e *env) *cobra.Command { return sweepCommand(e, emuRunner) }

type sweepFlags struct {
	sf          scenarioFlags
	vary        []string
	grid        bool
	repeat      int
	out         string
	preset      string
	listPresets bool
	shard       string
	only        []string
	dryRun      bool
	force       bool
	verbose     bool
	keepDeg     bool
	exec        execFlags
	studies     sweep.Catalog // where --preset is looked up
}

func sweepCommand(e *env, newRunner sweepRunner) *cobra.Command {
	f := sweepFlags{studies: e.catalog()}
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
				return sweep.WritePresets(e.stdout, e.catalog())
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
				out = filepath.Join("results", "sweep-"+outStamp()+"-"+sweep.DirName(plan))
			}
			o, err := f.exec.options(out)
			if err != nil {
				return err
			}
			o.Shard = shard
			if o.Only, err = sweep.ParseSelection(plan, f.only); err != nil {
				return usageError{err}
			}
			job := &sweep.PlanJob{Plan: plan, Force: f.force, Aggregate: sweep.AggregateOptions{KeepDegraded: f.keepDeg, Studies: e.catalog()}}
			return drive(e, sweep.Session{Name: "sweep", Dir: out, Options: o}, job, f.dryRun, newRunner, f.verbose)
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
	c.Flags().StringArrayVar(&f.only, "only", nil, "run only the points with one of these values of an axis: AXIS=V1,V2,… (repeatable; the plan and its seeds stay whole)")
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
		pr, ok := f.studies.Preset(f.preset)
		if !ok {
			return nil, usagef("--preset %q: no such preset (one of %s)", f.preset, strings.Join(f.studies.PresetNames(), ", "))
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
