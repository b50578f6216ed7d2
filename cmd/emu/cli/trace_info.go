package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/tracefmt"
)

// traceInfoJSON is what `emu trace info --json` prints; up_mbps is null
// for a trace without an uplink, the delay and loss fields for a trace
// without them (up_delay_ms and up_loss_pct only where the uplink has a
// delay or loss column of its own).
type traceInfoJSON struct {
	Format    tracefmt.Format `json:"format"`
	DurationS float64         `json:"duration_s"`
	Steps     int             `json:"steps"`
	DownMbps  rateJSON        `json:"down_mbps"`
	UpMbps    *rateJSON       `json:"up_mbps"`
	DelayMs   *rateJSON       `json:"delay_ms,omitempty"`
	UpDelayMs *rateJSON       `json:"up_delay_ms,omitempty"`
	// DelayJumpsS are the times (s) the delay rises past
	// DelayJumpThresholdMs; DelayJumpPeriodS their period when regular.
	DelayJumpsS          []float64 `json:"delay_jumps_s,omitempty"`
	DelayJumpThresholdMs float64   `json:"delay_jump_threshold_ms,omitempty"`
	DelayJumpPeriodS     float64   `json:"delay_jump_period_s,omitempty"`
	LossPct              *rateJSON `json:"loss_pct,omitempty"`
	UpLossPct            *rateJSON `json:"up_loss_pct,omitempty"`
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

func scaled(r tracefmt.RateStats, k float64) tracefmt.RateStats {
	return tracefmt.RateStats{Mean: r.Mean * k, Min: r.Min * k, Max: r.Max * k, P5: r.P5 * k, P50: r.P50 * k, P95: r.P95 * k}
}

func infoJSON(t *tracefmt.Trace, st tracefmt.Stats) traceInfoJSON {
	out := traceInfoJSON{Format: t.Format, DurationS: st.Duration.Seconds(), Steps: st.Steps, DownMbps: toRateJSON(st.Down)}
	if st.HasUp {
		up := toRateJSON(st.Up)
		out.UpMbps = &up
	}
	if st.HasDelay {
		d := toRateJSON(st.Delay)
		out.DelayMs = &d
		if st.HasUpDelay {
			u := toRateJSON(st.UpDelay)
			out.UpDelayMs = &u
		}
		for _, at := range st.Jumps.At {
			out.DelayJumpsS = append(out.DelayJumpsS, at.Seconds())
		}
		out.DelayJumpThresholdMs = float64(st.Jumps.Threshold.Microseconds()) / 1e3
		out.DelayJumpPeriodS = st.Jumps.Period.Seconds()
	}
	if st.HasLoss {
		l := toRateJSON(scaled(st.Loss, 100))
		out.LossPct = &l
		if st.HasUpLoss {
			u := toRateJSON(scaled(st.UpLoss, 100))
			out.UpLossPct = &u
		}
	}
	return out
}

func newTraceInfoCmd(e *env) *cobra.Command {
	var (
		f      traceFlags
		asJSON bool
	)
	c := &cobra.Command{
		Use:   "info FILE",
		Short: "Print a trace's format, duration and capacity, delay and loss statistics",
		Long: `info prints a trace's format, duration, number of steps and the mean, min,
max and 5th/50th/95th percentiles of its downlink and uplink capacity in
Mbit/s, and of its one-way delay (ms) and loss (%) when it carries them,
with the times its delay jumps (rises more than max(5 ms, 3 x (p95 - p50))
above its median; rises within 1 s are one jump) and their period when
they recur regularly (Starlink's every 15 s). Every statistic is
time-weighted: a step counts for as long as it lasts. With --json it prints
  {"format", "duration_s", "steps", "down_mbps": {"mean", "min", "max",
   "p5", "p50", "p95"}, "up_mbps": {...} or null when the trace has no uplink,
   and, when present, "delay_ms", "up_delay_ms", "delay_jumps_s",
   "delay_jump_threshold_ms", "delay_jump_period_s", "loss_pct",
   "up_loss_pct"}.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := f.load(cmd, args[0])
			if err != nil {
				return err
			}
			st := t.Stats()
			if asJSON {
				return printJSON(e.stdout, infoJSON(t, st))
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(e.stdout, "trace     %s\nformat    %s\nduration  %s s\nsteps     %d\n",
				t.Source, t.Format, trimFloat(st.Duration.Seconds()), st.Steps)
			if t.HasDelay || t.HasLoss {
				fmt.Fprintf(e.stdout, "also      %s\n", extraColumns(t))
			}
			fmt.Fprintln(e.stdout, "\ntime-weighted:")
			fmt.Fprintf(tw, "\tmean\tmin\tmax\tp5\tp50\tp95\t\n")
			row := func(what string, r tracefmt.RateStats) {
				fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", what, r.Mean, r.Min, r.Max, r.P5, r.P50, r.P95)
			}
			if t.Format != tracefmt.FormatDelay && t.Format != tracefmt.FormatLoss {
				row("down Mbit/s", st.Down)
				if st.HasUp {
					row("up Mbit/s", st.Up)
				}
			}
			if st.HasDelay {
				row("delay ms", st.Delay)
				if st.HasUpDelay {
					row("up delay ms", st.UpDelay)
				}
			}
			if st.HasLoss {
				row("loss %", scaled(st.Loss, 100))
				if st.HasUpLoss {
					row("up loss %", scaled(st.UpLoss, 100))
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if st.HasDelay {
				fmt.Fprintln(e.stdout, jumpsLine(st.Jumps))
			}
			return nil
		},
	}
	f.register(c)
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

// jumpsLine says when the delay jumps: "delay jumps above 19 ms: 8 times,
// every 15.00 s (at 8.75, 23.73, ... s)".
func jumpsLine(j tracefmt.Jumps) string {
	th := float64(j.Threshold.Microseconds()) / 1e3
	if len(j.At) == 0 {
		return fmt.Sprintf("\ndelay jumps above %.1f ms: none", th)
	}
	var at []string
	for i, a := range j.At {
		if i == 6 {
			at = append(at, "...")
			break
		}
		at = append(at, fmt.Sprintf("%.2f", a.Seconds()))
	}
	period := "irregularly"
	if j.Period > 0 {
		period = fmt.Sprintf("every %.2f s", j.Period.Seconds())
	}
	return fmt.Sprintf("\ndelay jumps above %.1f ms: %d times, %s (at %s s)", th, len(j.At), period, strings.Join(at, ", "))
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
