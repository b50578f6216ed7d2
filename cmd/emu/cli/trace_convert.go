package cli

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/tracefmt"
)

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
		Short: "Plot a trace's capacity, delay and loss over time",
		Long: `plot draws a step plot of the trace's downlink (and uplink) capacity in
Mbit/s against time in seconds, titled with the trace's name, as SVG or PNG
according to OUT's extension; below it, panels of its one-way delay (ms)
and loss (%) when it carries them.`,
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
