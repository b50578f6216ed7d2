package flowcontrol

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	gpalette "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// The sweep metrics the table reads (emu/sweep computes them from each
// run's summary.json): the downlink's reordering and, with flow control,
// what credit cost (pdcp.down.flow_control).
const (
	metricHoldP95     = "pdcp.down.hold_p95_ms"
	metricExpiries    = "pdcp.down.expiries_per_s"
	metricHostDropped = "pdcp.down.fc_host_dropped"
	metricWaitP95     = "pdcp.down.fc_wait_p95_ms"
	// metricQueueDrops is the downlinks' rate-limiter queue drops summed
	// (summary.json's links[dir=down].queue_drops).
	metricQueueDrops = "link.down.queue_drops" // results.DirQueueDrops("down")
	// dcFlow is the throughput scenario's DC flow, whose RTT the table
	// prefers.
	dcFlow = "dc"
)

// metricLimited is the time the PDCP host had a PDU link had no credit
// for ("pdcp.down.link1.fc_limited_s").
func metricLimited(link string) string { return "pdcp.down." + link + ".fc_limited_s" }

// study is the flow-control study: its presets, and its table and heat
// map of any sweep with the fc axis (a preset's, or --vary's in a labelled
// axis of the same key).
type study struct{ presets []sweep.Preset }

// Presets returns the presets.
func (s study) Presets() []sweep.Preset { return s.presets }

// Tables writes the per-setting table of a sweep with the fc axis.
func (study) Tables(w io.Writer, t *results.SweepTable) { writeTable(w, t) }

// Figures draws the heat map of relative goodput over buffer × interval
// of a sweep with the fc axis.
func (study) Figures(t *results.SweepTable) ([]sweep.Figure, error) {
	f, err := heatmap(t)
	if f == nil || err != nil {
		return nil, err
	}
	return []sweep.Figure{*f}, nil
}

// fcAxisOf returns the plan's fc axis, if it has one.
func fcAxisOf(t *results.SweepTable) (results.Axis, bool) {
	if t == nil || t.Plan == nil {
		return results.Axis{}, false
	}
	for _, a := range t.Plan.Vary {
		if a.Key == Axis {
			return a, true
		}
	}
	return results.Axis{}, false
}

// writeTable writes, for a sweep with the fc axis, each point with runs in
// plan order: its setting, goodput (mean ± 95 % CI) and its ratio to the
// off point's, the DC flow's p95 RTT, the p95 reordering hold and
// t-Reordering expiries, the PDCP host's drops before an SN and p95 wait
// for credit, each leg's credit-limited time and the link queue drops,
// each a mean per run. Nothing for other sweeps.
func writeTable(w io.Writer, t *results.SweepTable) {
	if _, ok := fcAxisOf(t); !ok {
		return
	}
	rtt := rttMetric(t)
	fmt.Fprintf(w, "\nDC flow control (%s axis): each setting against %s (dc.fc=off, dc.scheduler=%s); means per run\n", Axis, Off, offScheduler)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "fc\tscheduler\tbuffer\tinterval\tgoodput\t÷ off\tp95 RTT\tp95 hold\texpiries\thost drops\thost p95 wait\tcredit-limited\tqueue drops\truns")
	fmt.Fprintln(tw, "\t\t\t\tMbit/s\t×\tms\tms\tper s\tSDUs\tms\ts, link1/link2\tdownlinks")
	for i := range t.Rows {
		r := &t.Rows[i]
		if r.OK+r.Degraded == 0 {
			continue // not run (a slice: --only)
		}
		label := r.Labels[Axis]
		s, ok := ParseLabel(label)
		if !ok {
			s = Setting{Mode: label, Scheduler: "?"}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n",
			s.Mode, s.Scheduler, dash(s.Buffer), dash(s.Interval),
			r.Stats[results.MetricGoodput].Text(1), r.Stats[results.MetricRelativeGoodput].Text(2),
			r.Stats[rtt].Text(1), r.Stats[metricHoldP95].Text(1), r.Stats[metricExpiries].Text(2),
			r.Stats[metricHostDropped].Text(0), r.Stats[metricWaitP95].Text(1),
			meanText(r.Stats[metricLimited("link1")], 2)+" / "+meanText(r.Stats[metricLimited("link2")], 2),
			r.Stats[metricQueueDrops].Text(0), r.OK+r.Degraded)
	}
	tw.Flush()
}

// rttMetric is the p95 RTT metric of the DC flow, or of the first flow
// that has one when no flow is named dc.
func rttMetric(t *results.SweepTable) string {
	const suffix = ".rtt_p95_ms"
	want := results.FlowMetric(dcFlow, "rtt_p95_ms")
	var found []string
	for _, m := range t.Metrics {
		if strings.HasPrefix(m, "flow.") && strings.HasSuffix(m, suffix) {
			found = append(found, m)
		}
	}
	if len(found) == 0 || slices.Contains(found, want) {
		return want
	}
	return slices.Min(found)
}

// meanText is the mean alone, or "-".
func meanText(s results.Stat, prec int) string {
	if s.N == 0 || math.IsNaN(s.Mean) {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, s.Mean)
}

// dash is s, or "-" for "".
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// relMax is the top of the heat map's colour scale, as the engine's
// relative-goodput map has it: 1 (as good as off) is its white middle.
const relMax = 2.0

// The keys of the heat map's axes, dc.fc's own.
const (
	keyBuffer   = "dc.fc.buffer"
	keyInterval = "dc.fc.interval"
)

// heatmap draws, for a sweep with the fc axis and flow-controlled points
// with runs, the mean relative goodput (÷ the off point) of each
// flow-controlled point over its buffer (x) and interval (y); nil for any
// other sweep.
func heatmap(t *results.SweepTable) (*sweep.Figure, error) {
	a, ok := fcAxisOf(t)
	if !ok {
		return nil, nil
	}
	bx, iy := results.Axis{Key: keyBuffer}, results.Axis{Key: keyInterval}
	for _, v := range a.Values {
		if s, ok := ParseLabel(v); ok && s.Mode == DDDS {
			if !slices.Contains(bx.Values, s.Buffer) {
				bx.Values = append(bx.Values, s.Buffer)
			}
			if !slices.Contains(iy.Values, s.Interval) {
				iy.Values = append(iy.Values, s.Interval)
			}
		}
	}
	if len(bx.Values) == 0 {
		return nil, nil
	}
	// The flow-controlled rows, labelled by buffer and interval as well.
	grid := &results.SweepTable{Plan: t.Plan, Vary: t.Vary, Metrics: t.Metrics}
	for _, r := range t.Rows {
		s, ok := ParseLabel(r.Labels[Axis])
		if !ok || s.Mode != DDDS {
			continue
		}
		r.Labels = maps.Clone(r.Labels)
		r.Labels[keyBuffer], r.Labels[keyInterval] = s.Buffer, s.Interval
		grid.Rows = append(grid.Rows, r)
	}
	cm := gpalette.Reverse(moreland.SmoothBlueRed()) // red below off, blue above
	cm.SetMin(0)
	cm.SetMax(relMax)
	panel := sweep.HeatPanel{Title: DDDS + " + " + dddsScheduler + " ÷ " + Off, Match: func(*results.SweepRow) bool { return true }}
	svg, png, filled, err := sweep.HeatMap(grid, bx, iy, results.MetricRelativeGoodput, []sweep.HeatPanel{panel}, cm, relMax, "relative goodput")
	if err != nil || filled == 0 {
		return nil, err
	}
	return &sweep.Figure{Name: "fc-relative-goodput-buffer-interval", Title: "Flow control: relative goodput over buffer × report interval",
		Caption: fmt.Sprintf("Mean relative goodput of each flow-controlled point (dc.fc=ddds, dc.scheduler=%s): total goodput ÷ the mean goodput of the %s=%s point "+
			"(dc.fc=off, dc.scheduler=%s), per leg buffer (x, %s at the leg's rate) and report interval (y, %s). Red: below off, white: equal, blue: above; the scale ends at %g. Grey: no runs.",
			dddsScheduler, Axis, Off, offScheduler, keyBuffer, keyInterval, relMax),
		SVG: svg, PNG: png}, nil
}
