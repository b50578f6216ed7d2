package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/analysis/qlog"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// analyzeFlags: WriteOptions holds --out, --plot, --no-plot, --export-qvis.
type analyzeFlags struct {
	analysis.WriteOptions
	json         bool
	bin          time.Duration
	skipQlog     bool
	keepDegraded bool // count a sweep's degraded runs in its statistics
}

func newAnalyzeCmd(e *env) *cobra.Command {
	var f analyzeFlags
	c := &cobra.Command{
		Use:   "analyze PATH",
		Short: "Tables, " + results.AnalysisFile + " and plots from a run, a sweep or a qlog file",
		Long: `analyze reads what emu run and emu sweep wrote (docs/results.md), or a single
qlog file (quic-go .sqlog or ngtcp2 JSON-SEQ), and prints per flow the goodput,
mean and 95th-percentile smoothed RTT, maximum congestion window, lost and
reordered packets, and per run Jain's fairness index, link utilization and
PDCP repairs (PDUs the PDCP receiver put back in order).

A run directory gets ` + results.AnalysisFile + ` and, unless --no-plot, ` + results.PlotsDir + `/ with
throughput.svg/.png (each flow's goodput and the link capacities over time),
utilization.svg/.png, congestion-<flow>-server.svg/.png (cwnd, bytes in
flight and RTT from the sender's qlog, like qvis' congestion view),
congestion-<flow>-tcpinfo.svg/.png (the same for TCP flows, from TCP_INFO),
delay.svg/.png (goodput, RTT and one-way delay over time), owd-cdf.svg/.png
and queue-delay.svg/.png, and ` + results.ReportFile + `: one self-contained page with
the configuration, these tables, every figure and links to the run's files.
A sweep directory gets ` + results.AnalysisFile + ` with mean, sd and 95 % CI per point
over the runs that finished ok (and each run its own ` + results.AnalysisFile + `);
runs whose emulation was degraded are left out unless --keep-degraded.
A qlog file is only read: --out writes its JSON, --plot its figures.

A qlog cut short by a killed run is analysed up to its last complete record,
with a warning. --export-qvis writes copies of the qlog files that qvis
builds older than commit 0c93edf can load (quic-go v0.65 writes a
reference_time those builds reject).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("analyze takes one PATH (a run directory, a sweep directory or a qlog file), got %d arguments", len(args))
			}
			fi, err := os.Stat(args[0])
			fsys := os.DirFS(args[0])
			switch {
			case f.bin <= 0 || f.bin > time.Hour:
				return usagef("--bin %v: want a positive duration up to 1h", f.bin)
			case f.NoPlot && cmd.Flags().Changed("plot"):
				return usagef("--plot and --no-plot contradict each other")
			case err != nil:
				return err
			case !fi.IsDir():
				err = analyzeQlogFile(e, args[0], f)
			case analysis.IsRunDir(fsys):
				err = analyzeRunDir(e, args[0], f)
			case analysis.IsSweepDir(fsys) && (cmd.Flags().Changed("plot") || f.QvisDir != ""):
				return usagef("--plot and --export-qvis apply to a run directory or a qlog file, not a sweep")
			case analysis.IsSweepDir(fsys):
				err = analyzeSweepDir(e, args[0], f)
			default:
				return fmt.Errorf("%s: neither a run directory (%s, %s, %s/) nor a sweep directory (%s, %s/)", args[0],
					results.SummaryFile, results.TimeseriesFile, results.QlogDir, results.PlanFile, results.RunsDir)
			}
			if errors.Is(err, analysis.ErrQvisOverwrite) {
				return usagef("--export-qvis %s: %v", f.QvisDir, err)
			}
			return err
		},
	}
	fl := c.Flags()
	fl.BoolVar(&f.json, "json", false, "print the analysis as JSON instead of tables")
	fl.StringVar(&f.PlotDir, "plot", "", "write SVG and PNG figures to this directory (default for a run: <run>/plots)")
	fl.BoolVar(&f.NoPlot, "no-plot", false, "write no figures")
	fl.StringVar(&f.QvisDir, "export-qvis", "", "write qvis-compatible copies of the qlog files to this directory")
	fl.DurationVar(&f.bin, "bin", analysis.DefaultBin, "width of the qlog time-series bins")
	fl.StringVar(&f.Out, "out", "", "write "+results.AnalysisFile+" here instead of into the run or sweep directory")
	fl.BoolVar(&f.skipQlog, "no-qlog", false, "run and sweep: skip the qlog files (faster; no RTT, cwnd, loss or reordering figures)")
	fl.BoolVar(&f.keepDegraded, "keep-degraded", false, "sweep: count runs whose emulation was degraded in the statistics")
	return c
}

func analyzeQlogFile(e *env, path string, f analyzeFlags) error {
	a, w, err := analysis.AnalyzeQlogFile(path, analysis.QlogOptions{Bin: f.bin}, f.WriteOptions)
	if errors.Is(err, qlog.ErrTruncated) {
		fmt.Fprintf(e.stderr, "emu: warning: %v; figures cover the complete records before it\n", err)
	} else if err != nil {
		return err
	}
	w.Log(e.stderr)
	return analyzePrint(e, f, a, analysis.WriteQlog, "")
}

func analyzeRunDir(e *env, dir string, f analyzeFlags) error {
	ra, w, err := analysis.AnalyzeRunDir(dir, analysis.RunOptions{Bin: f.bin, SkipQlog: f.skipQlog}, f.WriteOptions)
	if err != nil {
		return err
	}
	warn(e, ra.Warnings)
	w.Log(e.stderr)
	return analyzePrint(e, f, ra, analysis.WriteRun, w.Out)
}

func analyzeSweepDir(e *env, dir string, f analyzeFlags) error {
	ro := analysis.RunOptions{Bin: f.bin, SkipQlog: f.skipQlog}
	t, out, err := sweep.Analyze(dir, ro, sweep.AggregateOptions{KeepDegraded: f.keepDegraded}, f.Out)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	warn(e, t.Warnings)
	return analyzePrint(e, f, t, sweep.WriteAnalysis, out)
}

func warn(e *env, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "emu: warning: %s\n", w)
	}
}

// analyzePrint prints an analysis: as JSON with --json, else as text
// followed by where it was written (out, if not "").
func analyzePrint[T any](e *env, f analyzeFlags, v T, text func(io.Writer, T), out string) error {
	if f.json {
		return printJSON(e.stdout, v)
	}
	text(e.stdout, v)
	if out != "" {
		fmt.Fprintf(e.stdout, "\nwrote %s\n", out)
	}
	return nil
}
