package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

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
with --time-col/--down-col, any CSV; by their names, LeoReplayer's one-way
delay series (.delay, ms per 10 ms) and loss series (.loss). A Mahimahi X.bw
or X.down with X.delay beside it carries that delay (starlink is such a
pair). Rates are in Mbit/s (10^6 bit/s).`,
	}
	c.AddCommand(newTraceInfoCmd(e), newTraceConvertCmd(e), newTracePlotCmd(e), newTraceListCmd(e))
	return c
}

// traceFlags are the reading and reshaping options every trace subcommand
// takes.
type traceFlags struct {
	format, up              string
	timestamps              bool
	window, step            time.Duration
	timeCol, downCol, upCol string
	timeUnit, rateUnit      string
	offset, duration        time.Duration
	timeScale, rateScale    float64
}

func (f *traceFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&f.format, "format", "", "force the format: raca, mahimahi, csv, cooked, columns, delay or loss (default: detect; .delay and .loss files by name)")
	fl.DurationVar(&f.step, "step", tracefmt.DefaultStep, "delay, loss: how long each line's value lasts")
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
		Format: format, Timestamps: f.timestamps, Window: f.window, Step: f.step, UpPath: f.up,
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

func trimFloat(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
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
