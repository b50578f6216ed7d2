package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu"
	"github.com/dc-emu/emu/emu/results"
)

func newRunCmd(e *env) *cobra.Command {
	var sf scenarioFlags
	var out string
	var asJSON, quiet bool
	c := &cobra.Command{
		Use:         "run",
		Annotations: needsRoot(),
		Short:       "Run the scenario's downloads over the emulated network and report what happened",
		Long: `run builds the network (two links shaped by a bandwidth trace or constant
rates, delay lines, PDCP proxies), runs the scenario's flows (QUIC or TCP
downloads, each endpoint its own process), writes a results directory and
prints a summary: per-flow goodput, Jain's fairness index, link utilization
and the PDCP repairs.

  emu run                                  # DC download over the shipped LTE trace
  emu run --trace StaticA.csv              # the same, trace named explicitly
  emu run --trace none --set flow.proto=tcp --set flow.cc=bbr
  emu run --scenario fairness --set flow.duration=60s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := sf.resolve()
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join("results", outStamp()+"-"+cfg.Scenario)
			}
			_, statErr := os.Stat(out)
			if err := userOut(out); err != nil {
				return err
			}
			o := emu.RunOptions{Out: out, Log: e.stderr}
			if !quiet {
				o.Status = e.stderr
				fmt.Fprintf(e.stderr, "emu: %s scenario, %d flow(s), results in %s\n", cfg.Scenario, len(cfg.Flows), out)
				fmt.Fprintf(e.stderr, "emu: rates: %s\n", cfg.RateSources())
				if src := cfg.ImpairmentSources(); src != "" {
					fmt.Fprintf(e.stderr, "emu: delay and loss traces: %s\n", src)
				}
			}
			sum, err := emu.Run(e.ctx, cfg, o)
			if sum == nil && errors.Is(statErr, fs.ErrNotExist) {
				os.Remove(out) // made for a run that never began: empty
			}
			if sum != nil {
				if asJSON {
					printJSON(e.stdout, sum)
				} else {
					results.WriteReport(e.stdout, sum, out)
				}
			}
			if errors.Is(err, emu.ErrInterrupted) {
				return fmt.Errorf("interrupted; what was measured is in %s", out)
			}
			return err
		},
	}
	sf.register(c, true)
	c.Flags().StringVarP(&out, "out", "o", "", "results directory (default results/<UTC time>-<scenario>)")
	c.Flags().BoolVar(&asJSON, "json", false, "print "+results.SummaryFile+" on stdout instead of the table")
	c.Flags().BoolVarP(&quiet, "quiet", "q", false, "no live progress lines")
	return c
}
