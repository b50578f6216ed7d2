package analysis

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/dc-emu/emu/emu/results"
)

// latencyFigures adds the delay figures of a run through try: RTT and
// one-way delay over time beside goodput, queueing delay per link, the
// one-way delay CDF per flow, and each TCP flow's congestion view.
func (ra *RunAnalysis) latencyFigures(try func(*Figure, error) error) error {
	if ts := ra.Timeseries; ts != nil {
		if err := try(DelayFigure(ts, ra.Run, ra.delayJumps())); err != nil {
			return err
		}
		if err := try(QueueDelayFigure(ts, ra.Run)); err != nil {
			return err
		}
		if err := try(LatenessFigure(ts, ra.Run)); err != nil {
			return err
		}
	}
	if err := try(OWDCDFFigure(ra)); err != nil {
		return err
	}
	for _, a := range ra.TCPInfo {
		if err := try(TCPCongestionFigure(a)); err != nil {
			return err
		}
	}
	return nil
}

// DelayFigure draws, on one time axis, each flow's goodput, its RTT and
// its one-way delay (per-bin means of timeseries.csv's flow.<name>.rtt_ms
// and owd_ms): what the throughput figure shows for rate, here for delay.
// A dotted vertical line marks each of jumpsS, the times (s) a link's
// delay trace jumped, on every panel: a jump lasts tens of milliseconds,
// less than a bin, so the trace's binned delay alone would hide it, while
// its effect on goodput and RTT lasts longer.
func DelayFigure(ts *results.Timeseries, run string, jumpsS []float64) (*Figure, error) {
	flows := ts.Flows()
	if !hasFinite(ts, flows, results.SeriesRTT) && !hasFinite(ts, flows, results.SeriesOWD) {
		return nil, fmt.Errorf("delay: %w: %s has no flow.<name>.rtt_ms or owd_ms values", errNoData, results.TimeseriesFile)
	}
	good := newPlot(titled("Goodput, RTT and one-way delay per flow", run), "", "goodput (Mbit/s)")
	rtt := newPlot("", "", "RTT (ms)")
	owd := newPlot("", "time since run start (s)", "one-way delay (ms)")
	for i, f := range flows {
		c := colorAt(palette, i)
		for _, p := range []struct {
			plot   *plot.Plot
			column string
		}{{good, results.SeriesGoodput}, {rtt, results.SeriesRTT}, {owd, results.SeriesOWD}} {
			xy := xyFinite(ts.T, ts.Column(results.FlowSeries(f, p.column)), 1)
			if err := addSeries(p.plot, series{label: "flow " + f, xy: xy, color: c, stepBack: true}); err != nil {
				return nil, fmt.Errorf("delay: %w", err)
			}
		}
	}
	// A link whose delay follows a trace: the trace's delay beside the
	// flows' measured one-way delay, so a flow's delay can be read as the
	// path's plus its queue.
	for _, c := range ts.Columns {
		l, ok := results.SeriesDir(c, results.SeriesTraceDelay)
		if !ok {
			continue
		}
		xy := xyFinite(ts.T, ts.Column(c), 1)
		if err := addSeries(owd, series{label: l + " trace delay", xy: xy, color: color.Gray{Y: 90}, dashes: []vg.Length{vg.Points(3), vg.Points(2)}, stepBack: true}); err != nil {
			return nil, fmt.Errorf("delay: %w", err)
		}
	}
	panels := []*plot.Plot{good, rtt, owd}
	hi := 0.0
	for _, p := range panels {
		yFromZero(p, 1.25)
		hi = math.Max(hi, p.X.Max)
	}
	for _, p := range panels {
		p.X.Min, p.X.Max = 0, hi
	}
	if err := markJumps(panels, jumpsS); err != nil {
		return nil, fmt.Errorf("delay: %w", err)
	}
	return &Figure{Name: "delay", Panels: panels, Width: figWidth, Height: 3 * figPanelHeight * 0.8}, nil
}

// markJumps draws a dotted vertical line at each of jumpsS across every
// panel, named in the last panel's legend.
func markJumps(panels []*plot.Plot, jumpsS []float64) error {
	for i, p := range panels {
		for k, x := range jumpsS {
			l, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
			if err != nil {
				return fmt.Errorf("delay jump at %g s: %w", x, err)
			}
			l.Color = color.Gray{Y: 110}
			l.Width = vg.Points(0.8)
			l.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
			p.Add(l)
			if i == len(panels)-1 && k == 0 {
				p.Legend.Add("delay trace jump", l)
			}
		}
	}
	return nil
}

// QueueDelayFigure draws how long packets waited in each link direction's
// rate limiter queue (timeseries.csv's link<N>.<dir>.queue_delay_ms).
// Directions that never queued are left out.
func QueueDelayFigure(ts *results.Timeseries, run string) (*Figure, error) {
	return linkColumnFigure(ts, "queue-delay", "queue delay", results.SeriesQueueDelay, titled("Queueing delay per link direction", run), "queueing delay (ms)")
}

// LatenessFigure draws each delay line's longest release lateness per bin
// (timeseries.csv's link<N>.<dir>.late_max_ms): when in the run the
// emulation fell behind, and by how much. Lines that were never late are
// left out.
func LatenessFigure(ts *results.Timeseries, run string) (*Figure, error) {
	return linkColumnFigure(ts, "late", "lateness", results.SeriesLateMax, titled("Delay-line release lateness per link direction (longest per bin)", run), "lateness (ms)")
}

// linkColumnFigure draws one line per link direction of timeseries.csv's
// link<N>.<dir>.<column>, leaving out directions never above 0; what
// names the figure in its errors.
func linkColumnFigure(ts *results.Timeseries, name, what, column, title, ylabel string) (*Figure, error) {
	p := newPlot(title, "time since run start (s)", ylabel)
	var ss []series
	k := 0
	for _, c := range ts.Columns {
		l, ok := results.SeriesDir(c, column)
		if !ok {
			continue
		}
		xy := xyFinite(ts.T, ts.Column(c), 1)
		if !anyAbove(xy, 0) {
			continue
		}
		ss = append(ss, series{label: l, xy: xy, color: colorAt(palette, k), stepBack: true})
		k++
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("%s: %w: %s has no link<N>.<dir>.%s above 0", what, errNoData, results.TimeseriesFile, column)
	}
	if err := addSeries(p, ss...); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	yFromZero(p, 1.25)
	p.X.Min = 0
	return &Figure{Name: name, Panels: []*plot.Plot{p}, Width: figWidth, Height: figHeight}, nil
}

// OWDCDFFigure draws the distribution of each flow's one-way delay over
// its send stamps, from flows/<flow>.owd.csv.
func OWDCDFFigure(ra *RunAnalysis) (*Figure, error) {
	p := newPlot(titled("One-way delay distribution per flow", ra.Run), "one-way delay (ms)", "fraction of send stamps")
	p.Legend.Left, p.Legend.Top = false, false
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(-8), vg.Points(8)
	var ss []series
	for i, f := range ra.Flows {
		x, y := f.owd.CDF()
		if len(x) == 0 {
			continue
		}
		xy := make(plotter.XYs, len(x))
		for j := range x {
			xy[j] = plotter.XY{X: x[j], Y: y[j]}
		}
		st, _ := f.owd.Stats()
		label := fmt.Sprintf("flow %s (p50 %.1f, p95 %.1f ms, %d stamps)", f.Name, st.P50, st.P95, st.N)
		ss = append(ss, series{label: label, xy: decimate(xy, maxPlotPoints), color: colorAt(palette, i), step: true})
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("owd cdf: %w: no flows/<flow>.owd.csv with send stamps", errNoData)
	}
	if err := addSeries(p, ss...); err != nil {
		return nil, fmt.Errorf("owd cdf: %w", err)
	}
	p.Y.Min, p.Y.Max = 0, 1.02
	return &Figure{Name: "owd-cdf", Panels: []*plot.Plot{p}, Width: figWidth, Height: figHeight}, nil
}

func hasFinite(ts *results.Timeseries, flows []string, q string) bool {
	for _, f := range flows {
		for _, v := range ts.Column(results.FlowSeries(f, q)) {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				return true
			}
		}
	}
	return false
}

func anyAbove(xy plotter.XYs, v float64) bool {
	for _, p := range xy {
		if p.Y > v {
			return true
		}
	}
	return false
}
