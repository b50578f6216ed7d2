package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

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
			for _, l := range res.Lines(out) {
				fmt.Fprintf(e.stderr, "merge: %s\n", l)
			}
			t, err := sweep.Finish(out, sweep.AggregateOptions{KeepDegraded: keepDegraded, Studies: e.catalog()})
			if err != nil {
				return fmt.Errorf("aggregate %s: %w", out, err)
			}
			sweep.WriteSummary(e.stdout, t, e.catalog())
			fmt.Fprintf(e.stdout, "\nresults: %s, %s\n", filepath.Join(out, results.CSVFile), filepath.Join(out, results.ReportFile))
			return res.Err()
		},
	}
	c.Flags().StringVar(&out, "out", "", "sweep directory to merge into (required)")
	c.Flags().BoolVar(&force, "force", false, "replace a different plan in --out")
	c.Flags().BoolVar(&keepDegraded, "keep-degraded", false, "count runs whose emulation was degraded in the statistics")
	return c
}
