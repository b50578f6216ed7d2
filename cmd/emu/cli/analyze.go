package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/analysis"
)

type analyzeFlags struct {
	json     bool
	plotDir  string
	noPlot   bool
	qvisDir  string
	bin      time.Duration
	out      string
	skipQlog bool
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
utilization.svg/.png and congestion-<flow>-server.svg/.png (cwnd, bytes in
flight and RTT from the sender's qlog, like qvis' congestion view).
A sweep directory gets analysis.json with mean, sd and 95 % CI per point
over the runs that finished ok (and each run its own analysis.json).
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
	return c
}

func analyzeQlogFile(e *env, path string, f analyzeFlags) error {
	fh, err := os.Open(path)
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
		if err := analyzeWriteJSON(f.out, a); err != nil {
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
		return analyzePrintJSON(e.stdout, a)
	}
	analyzePrintQlog(e.stdout, a)
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
	out := f.out
	if out == "" {
		out = filepath.Join(dir, "analysis.json")
	}
	if err := analyzeWriteJSON(out, ra); err != nil {
		return err
	}
	if !f.noPlot {
		plotDir := f.plotDir
		if !plotSet {
			plotDir = filepath.Join(dir, "plots")
		}
		figs, notes, err := analysis.RunFigures(ra)
		if err != nil {
			return err
		}
		if err := analyzeWriteFigures(e, plotDir, figs, notes); err != nil {
			return err
		}
	}
	if f.qvisDir != "" {
		files, err := analysis.QlogFiles(os.DirFS(dir))
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
	if f.json {
		return analyzePrintJSON(e.stdout, ra)
	}
	analyzePrintRun(e.stdout, ra)
	fmt.Fprintf(e.stdout, "\nwrote %s\n", out)
	return nil
}

func analyzeSweepDir(e *env, dir string, f analyzeFlags) error {
	sa, err := analysis.AnalyzeSweep(os.DirFS(dir), analysis.RunOptions{Bin: f.bin, SkipQlog: f.skipQlog})
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	for _, w := range sa.Warnings {
		fmt.Fprintf(e.stderr, "emu: warning: %s\n", w)
	}
	ids := make([]string, 0, len(sa.RunAnalyses))
	for id := range sa.RunAnalyses {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if err := analyzeWriteJSON(filepath.Join(dir, "runs", id, "analysis.json"), sa.RunAnalyses[id]); err != nil {
			return err
		}
	}
	out := f.out
	if out == "" {
		out = filepath.Join(dir, "analysis.json")
	}
	if err := analyzeWriteJSON(out, sa); err != nil {
		return err
	}
	if f.json {
		return analyzePrintJSON(e.stdout, sa)
	}
	analyzePrintSweep(e.stdout, sa)
	fmt.Fprintf(e.stdout, "\nwrote %s\n", out)
	return nil
}

// analyzeWriteJSON writes v indented to path through a temporary file, so
// an interrupted write never leaves half an analysis.json.
func analyzeWriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".analysis-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func analyzePrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
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
		dst := filepath.Join(dir, filepath.Base(src))
		if same, _ := analyzeSameFile(src, dst); same {
			return usagef("--export-qvis %s would overwrite %s itself", dir, src)
		}
		in, err := os.Open(src)
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

// Table cells: "-" for unknown values.
func anFloat(v analysis.NullFloat, prec int) string {
	if !v.Valid() {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, float64(v))
}

func anInt(v *int64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprint(*v)
}

func anKB(v *int64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(*v)/1000)
}

func anPercent(v analysis.NullFloat) string {
	if !v.Valid() {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(v))
}

func analyzePrintRun(w io.Writer, ra *analysis.RunAnalysis) {
	name := ra.Run
	if name == "" {
		name = "(no summary.json)"
	}
	fmt.Fprintf(w, "run %s: scenario %s, status %s, seed %s, %s s\n\n", name, orDash(ra.Scenario), orDash(ra.Status), orDash(ra.Seed), anFloat(ra.DurationS, 1))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "flow\tgoodput\tmean sRTT\tp95 sRTT\tmax cwnd\tlost\treordered\tbytes received\t")
	fmt.Fprintln(tw, "\tMbit/s\tms\tms\tkB\tpackets\tpackets\tB\t")
	for _, f := range ra.Flows {
		reord := anInt(f.ReorderedPackets)
		if f.ReorderedPackets != nil && f.ReorderedRatio.Valid() {
			reord += fmt.Sprintf(" (%.2f%%)", 100*float64(f.ReorderedRatio))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", f.Name, anFloat(f.GoodputMbps, 2), anFloat(f.MeanSRTTMs, 3),
			anFloat(f.P95SRTTMs, 3), anKB(f.MaxCwndBytes), anInt(f.PacketsLost), reord, anInt(f.BytesReceived))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nJFI %s over the flows' goodput", anFloat(ra.JFI, 3))
	if ra.JFIActive.Valid() {
		fmt.Fprintf(w, "; %s while all flows are active (%s-%s s)", anFloat(ra.JFIActive, 3),
			anFloat(ra.ActiveWindowS[0], 1), anFloat(ra.ActiveWindowS[1], 1))
	}
	fmt.Fprintln(w)
	if len(ra.Links) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "link\tcapacity\tthroughput\tutilization\t")
		fmt.Fprintln(tw, "\tMbit/s\tMbit/s\t\t")
		for _, l := range ra.Links {
			fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\t\n", l.Name, l.Dir, anFloat(l.CapacityMbps, 2), anFloat(l.ThroughputMbps, 2), anPercent(l.Utilization))
		}
		tw.Flush()
		var dirs []string
		for d, u := range ra.Utilization {
			dirs = append(dirs, d+" "+anPercent(u))
		}
		sort.Strings(dirs)
		fmt.Fprintf(w, "link utilization: %s\n", strings.Join(dirs, ", "))
	}
	dirs := make([]string, 0, len(ra.PDCP))
	for d := range ra.PDCP {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		p := ra.PDCP[d]
		fmt.Fprintf(w, "PDCP %s: %d repairs (PDUs put back in order), %d held, %d delivered on t-Reordering expiry, %d duplicates discarded, %d out of window, max buffer %d\n",
			d, p.Repairs, p.Held, p.ExpiredDeliveries, p.DuplicatesDiscarded, p.OutOfWindow, p.MaxBuffer)
	}
}

func analyzePrintQlog(w io.Writer, a *analysis.ConnAnalysis) {
	t := a.Totals
	fmt.Fprintf(w, "%s: %s %s, %d events over %.1f ms", a.File, a.Producer, orDash(a.Vantage), a.Events, a.DurationMs)
	if !a.WallClock.IsZero() {
		fmt.Fprintf(w, ", started %s", a.WallClock.Format(time.RFC3339Nano))
	}
	fmt.Fprintln(w)
	if a.Truncated != "" {
		fmt.Fprintln(w, "(cut short: figures cover the complete records only)")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "bytes received\t%d B of stream data (unique)\n", t.BytesReceived)
	fmt.Fprintf(tw, "goodput\t%s Mbit/s first to last stream byte (%s to %s ms); QUIC packets %s Mbit/s\n",
		anFloat(t.GoodputMbps, 1), anFloat(t.FirstByteMs, 2), anFloat(t.LastByteMs, 2), anFloat(t.ThroughputMbps, 1))
	fmt.Fprintf(tw, "packets\t%d sent (%d B), %d received (%d B), %d lost, %d spurious losses\n",
		t.PacketsSent, t.PacketBytesSent, t.PacketsReceived, t.PacketBytesReceived, t.PacketsLost, t.SpuriousLosses)
	fmt.Fprintf(tw, "max cwnd\t%d B\n", t.MaxCwndBytes)
	fmt.Fprintf(tw, "smoothed RTT\tmean %s ms, p95 %s ms over %d samples; min RTT %s ms, max latest RTT %s ms\n",
		anFloat(t.MeanSRTTMs, 3), anFloat(t.P95SRTTMs, 3), t.RTTSamples, anFloat(t.MinRTTMs, 3), anFloat(t.MaxLatestRTT, 3))
	r := a.Reordering
	fmt.Fprintf(tw, "reordered\t%d of %d 1-RTT packets (%.2f%%), max extent %d, max late %.2f ms, %d at distance ≥ 3\n",
		r.Reordered, r.Received, 100*r.Ratio, r.MaxExtent, r.MaxLateMs, r.DistanceGE3)
	fmt.Fprintf(tw, "congestion\t%d entries into recovery, %d state changes logged\n", t.CongestionEvents, len(a.CongestionStates))
	tw.Flush()
	for _, n := range a.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// analyzeSweepColumns picks the metrics a sweep table shows.
func analyzeSweepColumns(names []string) []string {
	var cols []string
	for _, n := range names {
		if (strings.HasPrefix(n, "flow.") && strings.HasSuffix(n, ".goodput_mbps")) || n == "jfi" ||
			(strings.HasPrefix(n, "link.") && strings.HasSuffix(n, ".utilization")) ||
			(strings.HasPrefix(n, "pdcp.") && strings.HasSuffix(n, ".repairs")) {
			cols = append(cols, n)
		}
	}
	return cols
}

func analyzePrintSweep(w io.Writer, sa *analysis.SweepAnalysis) {
	counts := map[string]int{}
	for _, r := range sa.Runs {
		counts[r.Status]++
	}
	var parts []string
	for s, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, s))
	}
	sort.Strings(parts)
	fmt.Fprintf(w, "sweep: %d points, %d runs (%s); varied %s\n", len(sa.Points), len(sa.Runs), strings.Join(parts, ", "), orDash(strings.Join(sa.Vary, ", ")))
	fmt.Fprintln(w, "cells: mean ± 95 % CI half-width over the runs with status ok")
	fmt.Fprintln(w)
	cols := analyzeSweepColumns(sa.MetricNames())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := []string{"point"}
	header = append(header, sa.Vary...)
	header = append(header, "runs")
	header = append(header, cols...)
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	for _, p := range sa.Points {
		row := []string{p.ID}
		for _, k := range sa.Vary {
			row = append(row, fmt.Sprint(p.Params[k]))
		}
		row = append(row, fmt.Sprint(p.Runs))
		for _, c := range cols {
			st, ok := p.Metrics[c]
			if !ok {
				st = analysis.Summarize(nil)
			}
			row = append(row, anStat(st))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	for _, r := range sa.Runs {
		if !r.Included {
			fmt.Fprintf(w, "left out: %s (%s) %s\n", r.ID, r.Status, r.Reason)
		}
	}
}

// anStat prints mean ± CI half-width with as many decimals as the
// half-width's two significant digits need.
func anStat(st analysis.Stat) string {
	switch {
	case st.N == 0:
		return "-"
	case st.N < 2 || math.IsNaN(st.CI95):
		return fmt.Sprintf("%.4g (n=1)", st.Mean)
	}
	dec := 3
	if st.CI95 > 0 {
		dec = min(max(1-int(math.Floor(math.Log10(st.CI95))), 0), 6)
	}
	return fmt.Sprintf("%.*f ± %.*f", dec, st.Mean, dec, st.CI95)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
