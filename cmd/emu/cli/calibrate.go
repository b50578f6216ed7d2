package cli

import (
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu"
	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

func newCalibrateCmd(e *env) *cobra.Command {
	var sf scenarioFlags
	var o emu.CalibrateOptions
	var asJSON bool
	c := &cobra.Command{
		Use:         "calibrate",
		Annotations: needsRoot(),
		Short:       "Measure what the PDCP proxies cost on this machine (the paper's Table 2)",
		Long: `calibrate measures RTT and throughput over the default link (20 Mbit/s,
10 ms one-way delay with 10% coefficient of variation) without and with the
two PDCP proxies in the path, N times each, and prints mean and standard
deviation, as the paper's Table 2 does. --set changes the link (e.g.
--set link.rate=100mbit).

--jobs N measures instead what running emulations side by side costs, as
emu sweep --jobs does: for 1, 2, …, N emulations at once, each loading
link1 (through both proxies) for --duration while probing the idle link2,
it prints the flows' goodput, the probes' RTT, the delay lines' release
lateness, the machine's CPU and how many runs the fidelity verdict calls
degraded: where these start to move is this machine's limit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sf.trace = "none"
			cfg, err := sf.resolve()
			if err != nil {
				return err
			}
			if o.Out == "" {
				o.Out = filepath.Join("results", outStamp()+"-calibrate")
			}
			if err := userOut(o.Out); err != nil {
				return err
			}
			o.Seed = sf.seed
			o.Status = e.stderr
			if o.Jobs > 0 {
				return calibrateJobs(e, cfg, o, asJSON)
			}
			cal, err := emu.Calibrate(e.ctx, cfg, o)
			if err != nil {
				return err
			}
			return reportCalibration(e, filepath.Join(o.Out, results.CalibrationFile), cal, asJSON, func(w io.Writer) { results.WriteCalibration(w, cal) })
		},
	}
	c.Flags().StringVar(&sf.scenario, "scenario", "throughput", "scenario whose first flow is measured")
	c.Flags().StringArrayVar(&sf.sets, "set", nil, "set a parameter, key=value (repeatable)")
	c.Flags().Uint64Var(&sf.seed, "seed", 1, "seed of the first run pair (pair i uses seed+i)")
	c.Flags().IntVarP(&o.Runs, "runs", "n", 10, "runs per variant")
	c.Flags().DurationVar(&o.Duration, "duration", 10*time.Second, "throughput measurement per run")
	c.Flags().IntVar(&o.Pings, "pings", 100, "RTT probes per run (10 ms apart)")
	c.Flags().StringVarP(&o.Out, "out", "o", "", "directory for the runs (default results/<time>-calibrate)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	c.Flags().IntVarP(&o.Jobs, "jobs", "j", 0, "measure 1 to N emulations at once instead (what emu sweep --jobs costs)")
	return c
}

// calibrateJobs is emu calibrate --jobs N.
func calibrateJobs(e *env, cfg config.Config, o emu.CalibrateOptions, asJSON bool) error {
	cal, err := emu.CalibrateJobs(e.ctx, cfg, o)
	if err != nil {
		return err
	}
	return reportCalibration(e, filepath.Join(o.Out, "calibration-jobs.json"), cal, asJSON, func(w io.Writer) { results.WriteJobsCalibration(w, cal) })
}

// reportCalibration writes a calibration to path and prints it, as JSON
// with asJSON, else as text.
func reportCalibration(e *env, path string, v any, asJSON bool, text func(io.Writer)) error {
	if err := results.WriteJSON(path, v); err != nil {
		return err
	}
	if asJSON {
		return printJSON(e.stdout, v)
	}
	text(e.stdout)
	return nil
}
