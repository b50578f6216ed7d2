package cli

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/invoker"
	"github.com/dc-emu/emu/tracefmt"
	"github.com/dc-emu/emu/traces"
)

func newTraceCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "trace",
		Short: "Inspect, convert and plot bandwidth traces",
		Long: `trace works on bandwidth traces: files on disk or the traces shipped in emu
(see "emu trace list"; StaticA.csv is the paper's LTE trace). Formats are
detected from the content: Raca et al. 4G/5G CSV, Mahimahi, emu's plain CSV
(time_s,down_mbps[,up_mbps[,delay_ms[,loss]]]), Pensieve "cooked" traces and,
with --time-col/--down-col, any CSV. Rates are in Mbit/s (10^6 bit/s).`,
	}
	c.AddCommand(newTraceInfoCmd(e), newTraceConvertCmd(e), newTracePlotCmd(e), newTraceListCmd(e))
	return c
}

// traceFlags are the reading and reshaping options every trace subcommand
// takes.
type traceFlags struct {
	format, up              string
	timestamps              bool
	window                  time.Duration
	timeCol, downCol, upCol string
	timeUnit, rateUnit      string
	offset, duration        time.Duration
	timeScale, rateScale    float64
}

func (f *traceFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&f.format, "format", "", "force the format: raca, mahimahi, csv, cooked or columns (default: detect)")
	fl.BoolVar(&f.timestamps, "timestamps", false, "raca: replay by Timestamp (sample-and-hold) instead of one row per second")
	fl.DurationVar(&f.window, "window", tracefmt.DefaultWindow, "mahimahi: rate-averaging window, whole milliseconds")
	fl.StringVar(&f.up, "up", "", "mahimahi: uplink trace (file or shipped name); X.down pairs with X.up by itself")
	fl.StringVar(&f.timeCol, "time-col", "", "columns: time column (default: one row per second)")
	fl.StringVar(&f.downCol, "down-col", "", "columns: downlink rate column")
	fl.StringVar(&f.upCol, "up-col", "", "columns: uplink rate column")
	fl.StringVar(&f.timeUnit, "time-unit", "s", "columns: unit of the time column, s or ms")
	fl.StringVar(&f.rateUnit, "rate-unit", "mbps", "columns: unit of the rate columns, bps, kbps, mbps or gbps")
	fl.DurationVar(&f.offset, "offset", 0, "skip this much of the trace's start")
	fl.DurationVar(&f.duration, "duration", 0, "keep this much of the trace after --offset (default: the rest)")
	fl.Float64Var(&f.timeScale, "time-scale", 1, "stretch time by this factor (2 = steps last twice as long)")
	fl.Float64Var(&f.rateScale, "rate-scale", 1, "multiply every capacity by this factor")
}

// load reads the trace named by a command's argument and reshapes it.
func (f *traceFlags) load(cmd *cobra.Command, name string) (*tracefmt.Trace, error) {
	format, err := tracefmt.ParseFormat(f.format)
	if err != nil {
		return nil, usagef("--format: %w", err)
	}
	if f.window < time.Millisecond || f.window%time.Millisecond != 0 {
		return nil, usagef("--window %v: want a whole number of milliseconds, at least 1ms", f.window)
	}
	o := tracefmt.ReadOptions{
		Format: format, Timestamps: f.timestamps, Window: f.window, UpPath: f.up,
		TimeColumn: f.timeCol, DownColumn: f.downCol, UpColumn: f.upCol,
	}
	if o.DownColumn != "" || o.TimeColumn != "" || o.UpColumn != "" {
		if o.Format == "" {
			o.Format = tracefmt.FormatColumns
		}
		if o.DownColumn == "" {
			return nil, usagef("--time-col and --up-col need --down-col")
		}
	}
	// Units only mean something to the columns reader; leave its defaults
	// (and the Lumos5G/5Gophers presets) alone unless the user set them.
	if cmd.Flags().Changed("time-unit") {
		o.TimeUnit = f.timeUnit
	}
	if cmd.Flags().Changed("rate-unit") {
		o.RateUnit = f.rateUnit
	}
	t, err := traces.LoadFrom(invoker.Disk{}, name, o) // under sudo, with the user's permissions
	if err != nil {
		return nil, err
	}
	if !(f.timeScale > 0) || !(f.rateScale > 0) {
		return nil, usagef("--time-scale %g and --rate-scale %g must be positive", f.timeScale, f.rateScale)
	}
	opts := tracefmt.Options{Offset: f.offset, Duration: f.duration, TimeScale: f.timeScale, RateScale: f.rateScale}
	if opts == (tracefmt.Options{TimeScale: 1, RateScale: 1}) {
		return t, nil
	}
	if t, err = t.Transform(opts); err != nil {
		return nil, usagef("%s: %w", name, err)
	}
	return t, nil
}

// traceInfoJSON is what `emu trace info --json` prints; up_mbps is null
// for a trace without an uplink.
type traceInfoJSON struct {
	Format    tracefmt.Format `json:"format"`
	DurationS float64         `json:"duration_s"`
	Steps     int             `json:"steps"`
	DownMbps  rateJSON        `json:"down_mbps"`
	UpMbps    *rateJSON       `json:"up_mbps"`
}

type rateJSON struct {
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	P5   float64 `json:"p5"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
}

func toRateJSON(r tracefmt.RateStats) rateJSON {
	return rateJSON{Mean: r.Mean, Min: r.Min, Max: r.Max, P5: r.P5, P50: r.P50, P95: r.P95}
}

func newTraceInfoCmd(e *env) *cobra.Command {
	var (
		f      traceFlags
		asJSON bool
	)
	c := &cobra.Command{
		Use:   "info FILE",
		Short: "Print a trace's format, duration and capacity statistics",
		Long: `info prints a trace's format, duration, number of steps and the mean, min,
max and 5th/50th/95th percentiles of its downlink and uplink capacity in
Mbit/s. Every statistic is time-weighted: a step counts for as long as it
lasts. With --json it prints
  {"format", "duration_s", "steps", "down_mbps": {"mean", "min", "max",
   "p5", "p50", "p95"}, "up_mbps": {...} or null when the trace has no uplink}.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := f.load(cmd, args[0])
			if err != nil {
				return err
			}
			st := t.Stats()
			if asJSON {
				out := traceInfoJSON{Format: t.Format, DurationS: st.Duration.Seconds(), Steps: st.Steps, DownMbps: toRateJSON(st.Down)}
				if st.HasUp {
					up := toRateJSON(st.Up)
					out.UpMbps = &up
				}
				return printJSON(e.stdout, out)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(e.stdout, "trace     %s\nformat    %s\nduration  %s s\nsteps     %d\n",
				t.Source, t.Format, trimFloat(st.Duration.Seconds()), st.Steps)
			if t.HasDelay || t.HasLoss {
				fmt.Fprintf(e.stdout, "also      %s\n", extraColumns(t))
			}
			fmt.Fprintln(e.stdout, "\nMbit/s, time-weighted:")
			fmt.Fprintf(tw, "\tmean\tmin\tmax\tp5\tp50\tp95\t\n")
			row := func(dir string, r tracefmt.RateStats) {
				fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", dir, r.Mean, r.Min, r.Max, r.P5, r.P50, r.P95)
			}
			row("down", st.Down)
			if st.HasUp {
				row("up", st.Up)
			}
			return tw.Flush()
		},
	}
	f.register(c)
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func extraColumns(t *tracefmt.Trace) string {
	var s []string
	if t.HasDelay {
		s = append(s, "delay")
	}
	if t.HasLoss {
		s = append(s, "loss")
	}
	return strings.Join(s, ", ")
}

func trimFloat(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

func newTraceConvertCmd(e *env) *cobra.Command {
	var (
		f       traceFlags
		to, out string
		dir     string
	)
	c := &cobra.Command{
		Use:   "convert FILE --to csv|mahimahi [-o OUT]",
		Short: "Convert a trace to emu's plain CSV or to Mahimahi format",
		Long: `convert writes a trace (after --offset/--duration/--time-scale/--rate-scale)
as emu's plain CSV or as a Mahimahi trace, to OUT or standard output.
A Mahimahi file holds one direction: --dir down|up picks it (default: up if
OUT ends in .up, else down). Times in Mahimahi are whole milliseconds and
every line is one 1500-byte packet.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var write func(io.Writer, *tracefmt.Trace) error
			switch to {
			case "csv":
				write = tracefmt.WriteCSV
			case "mahimahi":
				if dir == "" {
					dir = "down"
					if strings.HasSuffix(out, ".up") {
						dir = "up"
					}
				}
				if dir != "down" && dir != "up" {
					return usagef("--dir %q: want down or up", dir)
				}
				up := dir == "up"
				write = func(w io.Writer, t *tracefmt.Trace) error { return tracefmt.WriteMahimahi(w, t, up) }
			default:
				return usagef("--to %q: want csv or mahimahi", to)
			}
			t, err := f.load(cmd, args[0])
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				return write(e.stdout, t)
			}
			return writeFile(out, func(w io.Writer) error { return write(w, t) })
		},
	}
	f.register(c)
	c.Flags().StringVar(&to, "to", "", "output format: csv or mahimahi (required)")
	c.Flags().StringVarP(&out, "output", "o", "", "output file (default: standard output)")
	c.Flags().StringVar(&dir, "dir", "", "mahimahi: direction to write, down or up")
	return c
}

// writeFile writes path atomically with what fill writes, so a failed
// conversion leaves no file behind.
func writeFile(path string, fill func(io.Writer) error) error {
	var b bytes.Buffer
	if err := fill(&b); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return results.WriteFile(path, b.Bytes())
}

func newTracePlotCmd(e *env) *cobra.Command {
	var (
		f          traceFlags
		out, title string
	)
	c := &cobra.Command{
		Use:   "plot FILE -o OUT.svg|OUT.png",
		Short: "Plot a trace's capacity over time",
		Long: `plot draws a step plot of the trace's downlink (and uplink) capacity in
Mbit/s against time in seconds, titled with the trace's name, as SVG or PNG
according to OUT's extension.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format := strings.TrimPrefix(strings.ToLower(filepath.Ext(out)), ".")
			if out == "" {
				return usagef("plot needs -o OUT.svg or -o OUT.png")
			}
			if format != "svg" && format != "png" {
				return usagef("-o %s: the extension must be .svg or .png", out)
			}
			t, err := f.load(cmd, args[0])
			if err != nil {
				return err
			}
			if err := writeFile(out, func(w io.Writer) error { return analysis.WriteTracePlot(w, t, title, format) }); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %s\n", out)
			return nil
		},
	}
	f.register(c)
	c.Flags().StringVarP(&out, "output", "o", "", "output file, .svg or .png (required)")
	c.Flags().StringVar(&title, "title", "", "plot title (default: the trace's name)")
	return c
}

// traceListJSON is one row of `emu trace list --json`.
type traceListJSON struct {
	Name        string          `json:"name"`
	Format      tracefmt.Format `json:"format"`
	DurationS   float64         `json:"duration_s"`
	DownMean    float64         `json:"down_mean_mbps"`
	Description string          `json:"description"`
	Aliases     []string        `json:"aliases,omitempty"`
}

func newTraceListCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List the traces shipped in emu",
		Long: `list prints the traces built into emu, usable by name wherever emu takes a
trace: name, format, duration, mean downlink capacity (default reading) and
what the trace is. Their sources and terms are in traces/PROVENANCE.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var rows []traceListJSON
			for _, info := range traces.List() {
				t, err := traces.LoadFrom(invoker.Disk{}, info.Name, tracefmt.ReadOptions{})
				if err != nil {
					return fmt.Errorf("shipped trace %s: %w", info.Name, err)
				}
				st := t.Stats()
				rows = append(rows, traceListJSON{Name: info.Name, Format: info.Format, DurationS: st.Duration.Seconds(),
					DownMean: st.Down.Mean, Description: info.Description, Aliases: info.Aliases})
			}
			if asJSON {
				return printJSON(e.stdout, rows)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tFORMAT\tDURATION\tMEAN DOWN\tWHAT")
			for _, r := range rows {
				name := r.Name
				if r.Name == traces.Default {
					name += " (default)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s s\t%.3f Mbit/s\t%s\n", name, r.Format, trimFloat(r.DurationS), r.DownMean, r.Description)
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
