package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/host"
	"github.com/dc-emu/emu/emu/reproduce"
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
			job := &reproduce.Job{Plan: plan}
			if !f.dryRun {
				job.EmuVersion = host.CollectVersions().Emu // asks dpkg too
			}
			return drive(e, sweep.Session{Name: "reproduce", Dir: out, Options: o}, job, f.dryRun, newRunner, f.verbose)
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
