package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

type analyzeFlags struct {
	json     bool
	plotDir  string
	noPlot   bool
	qvisDir  string
	bin      time.Duration
	out      string
	skipQlog bool
	// keepDegraded counts a sweep's degraded runs in its statistics.
	keepDegraded bool
}

func newAnalyzeCmd(e *env) *cobra.Command {
	var f analyzeFlags
	c := &cobra.Command{
		Use:   "analyze PATH",
		Short: "Tables, analysis.json and plots from a run, a sweep or a qlog file",
		Long: `analyze reads what emu run and emu sweep wrote (docs/results.md), or a single
qlog file (quic-go .sqlog or ngtcp2 JSON-SEQ), and prints per flow the goodput,
mean and 95th-percentile smoothed RTT, maximum congestion window, lost and
reordered packets, and per run Jain's fairness index, link utilization and
PDCP repairs (PDUs the PDCP receiver put back in order).

A run directory gets analysis.json and, unless --no-plot, plots/ with
throughput.svg/.png (each flow's goodput and the link capacities over time),
utilization.svg/.png, congestion-<flow>-server.svg/.png (cwnd, bytes in
flight and RTT from the sender's qlog, like qvis' congestion view),
congestion-<flow>-tcpinfo.svg/.png (the same for TCP flows, from TCP_INFO),
delay.svg/.png (goodput, RTT and one-way delay over time), owd-cdf.svg/.png
and queue-delay.svg/.png, and report.html: one self-contained page with
the configuration, these tables, every figure and links to the run's files.
A sweep directory gets analysis.json with mean, sd and 95 % CI per point
over the runs that finished ok (and each run its own analysis.json);
runs whose emulation was degraded are left out unless --keep-degraded.
A qlog file is only read: --out writes its JSON, --plot its figures.

A qlog cut short by a killed run is analysed up to its last complete record,
with a warning. --export-qvis writes copies of the qlog files that qvis
builds older than commit 0c93edf can load (quic-go v0.65 writes a
reference_time those builds reject).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("analyze takes one PATH (a run directory, a sweep directory or a qlog file), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.bin <= 0 || f.bin > time.Hour {
				return usagef("--bin %v: want a positive duration up to 1h", f.bin)
			}
			if f.noPlot && cmd.Flags().Changed("plot") {
				return usagef("--plot and --no-plot contradict each other")
			}
			fi, err := os.Stat(args[0])
			if err != nil {
				return err
			}
			if !fi.IsDir() {
				return analyzeQlogFile(e, args[0], f)
			}
			fsys := os.DirFS(args[0])
			switch {
			case analysis.IsRunDir(fsys):
				return analyzeRunDir(e, args[0], f, cmd.Flags().Changed("plot"))
			case analysis.IsSweepDir(fsys):
				if cmd.Flags().Changed("plot") || f.qvisDir != "" {
					return usagef("--plot and --export-qvis apply to a run directory or a qlog file, not a sweep")
				}
				return analyzeSweepDir(e, args[0], f)
			}
			return fmt.Errorf("%s: neither a run directory (summary.json, timeseries.csv, qlog/) nor a sweep directory (plan.json, runs/)", args[0])
		},
	}
	fl := c.Flags()
	fl.BoolVar(&f.json, "json", false, "print the analysis as JSON instead of tables")
	fl.StringVar(&f.plotDir, "plot", "", "write SVG and PNG figures to this directory (default for a run: <run>/plots)")
	fl.BoolVar(&f.noPlot, "no-plot", false, "write no figures")
	fl.StringVar(&f.qvisDir, "export-qvis", "", "write qvis-compatible copies of the qlog files to this directory")
	fl.DurationVar(&f.bin, "bin", analysis.DefaultBin, "width of the qlog time-series bins")
	fl.StringVar(&f.out, "out", "", "write analysis.json here instead of into the run or sweep directory")
	fl.BoolVar(&f.skipQlog, "no-qlog", false, "run and sweep: skip the qlog files (faster; no RTT, cwnd, loss or reordering figures)")
	fl.BoolVar(&f.keepDegraded, "keep-degraded", false, "sweep: count runs whose emulation was degraded in the statistics")
	return c
}

func analyzeQlogFile(e *env, path string, f analyzeFlags) error {
	fh, err := openQlog(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	a, err := analysis.AnalyzeQlog(fh, path, analysis.QlogOptions{Bin: f.bin})
	if errors.Is(err, analysis.ErrTruncated) {
		fmt.Fprintf(e.stderr, "emu: warning: %v; figures cover the complete records before it\n", err)
	} else if err != nil {
		return err
	}
	if f.out != "" {
		if err := results.WriteJSON(f.out, a); err != nil {
			return err
		}
	}
	if f.plotDir != "" && !f.noPlot {
		figs, notes, err := analysis.QlogFigures(a)
		if err != nil {
			return err
		}
		if err := analyzeWriteFigures(e, f.plotDir, figs, notes); err != nil {
			return err
		}
	}
	if f.qvisDir != "" {
		if err := analyzeExportQvis(e, f.qvisDir, []string{path}); err != nil {
			return err
		}
	}
	if f.json {
		return printJSON(e.stdout, a)
	}
	analysis.WriteQlog(e.stdout, a)
	return nil
}

func analyzeRunDir(e *env, dir string, f analyzeFlags, plotSet bool) error {
	ra, err := analysis.AnalyzeRun(os.DirFS(dir), analysis.RunOptions{Bin: f.bin, SkipQlog: f.skipQlog})
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	for _, w := range ra.Warnings {
		fmt.Fprintf(e.stderr, "emu: warning: %s\n", w)
	}
	out := analyzeOut(f, dir)
	if err := results.WriteJSON(out, ra); err != nil {
		return err
	}
	var figs []*analysis.Figure
	notes := []string{"figures not drawn (--no-plot)"}
	if !f.noPlot {
		plotDir := f.plotDir
		if !plotSet {
			plotDir = filepath.Join(dir, "plots")
		}
		figs, notes, err = analysis.RunFigures(ra)
		if err != nil {
			return err
		}
		if err := analyzeWriteFigures(e, plotDir, figs, notes); err != nil {
			return err
		}
	}
	if err := analyzeWriteReport(e, dir, ra, figs, notes); err != nil {
		return err
	}
	if f.qvisDir != "" {
		files, err := results.QlogFiles(os.DirFS(dir))
		if err != nil {
			return err
		}
		for i := range files {
			files[i] = filepath.Join(dir, filepath.FromSlash(files[i]))
		}
		if err := analyzeExportQvis(e, f.qvisDir, files); err != nil {
			return err
		}
	}
	return analyzePrint(e, f, ra, analysis.WriteRun, out)
}

// analyzeOut is where a directory's analysis.json goes: --out, else into
// the directory.
func analyzeOut(f analyzeFlags, dir string) string {
	if f.out != "" {
		return f.out
	}
	return filepath.Join(dir, "analysis.json")
}

// analyzePrint prints a directory's analysis, written to out: as JSON with
// --json, else as text followed by where the file is.
func analyzePrint[T any](e *env, f analyzeFlags, v T, text func(io.Writer, T), out string) error {
	if f.json {
		return printJSON(e.stdout, v)
	}
	text(e.stdout, v)
	fmt.Fprintf(e.stdout, "\nwrote %s\n", out)
	return nil
}

// analyzeWriteReport writes the run's report.html into the run directory
// (its links to qlog, pcap and key files are relative to it).
func analyzeWriteReport(e *env, dir string, ra *analysis.RunAnalysis, figs []*analysis.Figure, notes []string) error {
	var b bytes.Buffer
	if err := analysis.WriteRunReport(&b, os.DirFS(dir), ra, figs, notes); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	path := filepath.Join(dir, analysis.ReportFile)
	if err := results.WriteFile(path, b.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "emu: wrote %s\n", path)
	return nil
}

func analyzeSweepDir(e *env, dir string, f analyzeFlags) error {
	plan, err := results.ReadPlan(dir)
	if err != nil {
		return err
	}
	// The sweep's own aggregation decides which runs count; the analysis
	// adds each counted run's qlog figures to its metrics.
	runs := map[string]*analysis.RunAnalysis{}
	extra := func(runDir string, _ *results.Summary) (map[string]float64, error) {
		ra, err := analysis.AnalyzeRun(os.DirFS(runDir), analysis.RunOptions{Bin: f.bin, SkipQlog: f.skipQlog})
		if err != nil {
			return nil, err
		}
		runs[runDir] = ra
		return analysis.RunMetrics(ra), nil
	}
	t, err := sweep.Aggregate(dir, plan, sweep.AggregateOptions{Extra: extra, KeepDegraded: f.keepDegraded})
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	for _, w := range t.Warnings {
		fmt.Fprintf(e.stderr, "emu: warning: %s\n", w)
	}
	for _, runDir := range slices.Sorted(maps.Keys(runs)) {
		if err := results.WriteJSON(filepath.Join(runDir, "analysis.json"), runs[runDir]); err != nil {
			return err
		}
	}
	out := analyzeOut(f, dir)
	if err := results.WriteJSON(out, t); err != nil {
		return err
	}
	return analyzePrint(e, f, t, sweep.WriteAnalysis, out)
}

func analyzeWriteFigures(e *env, dir string, figs []*analysis.Figure, notes []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "emu: note: no figure: %s\n", n)
	}
	for _, fig := range figs {
		for _, format := range []string{"svg", "png"} {
			path := filepath.Join(dir, fig.Name+"."+format)
			fh, err := os.Create(path)
			if err != nil {
				return err
			}
			err = fig.Render(fh, format)
			if cerr := fh.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	if len(figs) > 0 {
		fmt.Fprintf(e.stderr, "emu: wrote %d figures (SVG and PNG) to %s\n", len(figs), dir)
	}
	return nil
}

func analyzeExportQvis(e *env, dir string, files []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, src := range files {
		// qvis loads plain files: a gzipped one is copied out plain.
		dst := filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), ".gz"))
		if same, _ := analyzeSameFile(src, dst); same {
			return usagef("--export-qvis %s would overwrite %s itself", dir, src)
		}
		in, err := openQlog(src)
		if err != nil {
			return err
		}
		out, err := os.Create(dst)
		if err != nil {
			in.Close()
			return err
		}
		res, err := analysis.ExportQvis(out, in, src)
		in.Close()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if res.Dropped != "" {
			fmt.Fprintf(e.stderr, "emu: warning: %s: left out of the qvis copy\n", res.Dropped)
		}
		how := "header converted"
		if !res.HeaderChanged {
			how = "already loads in old qvis, copied"
		}
		fmt.Fprintf(e.stderr, "emu: qvis: %s (%d events, %s)\n", dst, res.Events, how)
	}
	return nil
}

// openQlog opens a qlog file given by its path, gzipped or not.
func openQlog(name string) (io.ReadCloser, error) {
	return results.OpenQlog(os.DirFS(filepath.Dir(name)), filepath.Base(name))
}

func analyzeSameFile(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(fa, fb), nil
}
