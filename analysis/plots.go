package analysis

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/stats"
)

// errNoData marks a figure that has nothing to show (e.g. a run without
// timeseries.csv); RunFigures leaves such figures out.
var errNoData = errors.New("nothing to plot")

// maxPlotPoints bounds the points per line (see decimate).
const maxPlotPoints = 4000

// ThroughputFigure draws each flow's goodput over time together with the
// capacity of each downlink, from a run's timeseries.csv (the paper's
// Figure 5(b)).
func ThroughputFigure(ts *results.Timeseries, run string) (*Figure, error) {
	flows := ts.Flows()
	if len(flows) == 0 {
		return nil, fmt.Errorf("throughput: %w: %s has no flow.<name>.goodput_mbps column", errNoData, results.TimeseriesFile)
	}
	p := newPlot(titled("Goodput per flow and link capacity", run), "time since run start (s)", "rate (Mbit/s)")
	var ss []series
	for i, f := range flows {
		ss = append(ss, series{label: "flow " + f + " goodput", xy: xyFinite(ts.T, ts.Column(results.FlowSeries(f, results.SeriesGoodput)), 1),
			color: colorAt(palette, i)})
	}
	k := 0
	for _, l := range ts.Links() {
		if !strings.HasSuffix(l, ".down") {
			continue
		}
		ss = append(ss, series{label: strings.TrimSuffix(l, ".down") + " capacity (down)", xy: xyFinite(ts.T, ts.Column(results.DirSeries(l, results.SeriesCapacity)), 1),
			color: colorAt(greys, k), dashes: []vg.Length{vg.Points(6), vg.Points(3)}, stepBack: true, width: vg.Points(1.2)})
		k++
	}
	if err := addSeries(p, ss...); err != nil {
		return nil, fmt.Errorf("throughput: %w", err)
	}
	yFromZero(p, 1.25)
	p.X.Min = 0
	return &Figure{Name: "throughput", Panels: []*plot.Plot{p}, Width: figWidth, Height: figHeight}, nil
}

// UtilizationFigure draws each link's utilization (throughput / capacity
// per bin) over time, and the combined utilization of all downlinks
// (the paper's Figures 4(b) and 4(c)).
func UtilizationFigure(ts *results.Timeseries, run string) (*Figure, error) {
	links := ts.Links()
	p := newPlot(titled("Link utilization", run), "time since run start (s)", "utilization (% of capacity)")
	var ss []series
	var sumCap, sumThr []float64
	downLinks := 0
	for i, l := range links {
		c, th := ts.Column(results.DirSeries(l, results.SeriesCapacity)), ts.Column(results.DirSeries(l, results.SeriesThroughput))
		if c == nil || th == nil {
			continue
		}
		u := make([]float64, len(ts.T))
		for k := range u {
			u[k] = nan()
			if c[k] > 0 {
				u[k] = th[k] / c[k]
			}
		}
		if strings.HasSuffix(l, ".down") {
			downLinks++
			if sumCap == nil {
				sumCap, sumThr = make([]float64, len(ts.T)), make([]float64, len(ts.T))
			}
			for k := range u {
				sumCap[k] += c[k]
				sumThr[k] += th[k]
			}
		} else if stats.MeanOmitNaN(th) < 0.1*stats.MeanOmitNaN(c) {
			continue // an uplink carrying only ACKs would flatten the plot
		}
		ss = append(ss, series{label: l, xy: xyFinite(ts.T, u, 100), color: colorAt(palette, i)})
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("utilization: %w: %s has no link<N>.<dir>.capacity_mbps and throughput_mbps columns", errNoData, results.TimeseriesFile)
	}
	if downLinks > 1 {
		all := make([]float64, len(sumCap))
		for k := range all {
			all[k] = nan()
			if sumCap[k] > 0 {
				all[k] = sumThr[k] / sumCap[k]
			}
		}
		ss = append(ss, series{label: "all downlinks", xy: xyFinite(ts.T, all, 100), color: colorAt(greys, 0),
			dashes: []vg.Length{vg.Points(6), vg.Points(3)}, width: vg.Points(1.6)})
	}
	if err := addSeries(p, ss...); err != nil {
		return nil, fmt.Errorf("utilization: %w", err)
	}
	yFromZero(p, 1.2)
	p.Y.Max = max(p.Y.Max, 110)
	p.X.Min = 0
	return &Figure{Name: "utilization", Panels: []*plot.Plot{p}, Width: figWidth, Height: figHeight}, nil
}

// CongestionFigure is the qvis congestion view of one qlog: congestion
// window and bytes in flight (with lost packets marked) above, min,
// smoothed and latest RTT below, on a shared time axis.
func CongestionFigure(a *ConnAnalysis) (*Figure, error) {
	if len(a.Metrics) == 0 {
		return nil, fmt.Errorf("congestion %s: %w: no metrics_updated events", a.File, errNoData)
	}
	base := path.Base(a.File)
	unit, div := traceTimeUnit(a.DurationMs)
	var cwnd, bif, minRTT, srtt, latest plotter.XYs
	for _, m := range a.Metrics {
		t := m.TimeMs / div
		cwnd = append(cwnd, plotter.XY{X: t, Y: float64(m.Cwnd) / 1000})
		bif = append(bif, plotter.XY{X: t, Y: float64(m.BytesInFlight) / 1000})
		if !isNaN(m.MinRTT) {
			minRTT = append(minRTT, plotter.XY{X: t, Y: m.MinRTT})
		}
		if !isNaN(m.SmoothedRTT) && !isNaN(m.MinRTT) {
			srtt = append(srtt, plotter.XY{X: t, Y: m.SmoothedRTT})
		}
		if !isNaN(m.LatestRTT) && !isNaN(m.MinRTT) {
			latest = append(latest, plotter.XY{X: t, Y: m.LatestRTT})
		}
	}
	title := fmt.Sprintf("Congestion window and RTT: %s (%s, %s)", base, a.Producer, a.Vantage)
	top := newPlot(title, "", "window (kB)")
	if err := addSeries(top,
		series{label: "bytes in flight", xy: decimate(bif, maxPlotPoints), color: colorAt(palette, 5), step: true, width: vg.Points(1)},
		series{label: "congestion window", xy: decimate(cwnd, maxPlotPoints), color: colorAt(palette, 0), step: true, width: vg.Points(1.6)},
	); err != nil {
		return nil, fmt.Errorf("congestion %s: %w", a.File, err)
	}
	if len(a.LossTimes) > 0 {
		var pts plotter.XYs
		for _, t := range a.LossTimes {
			pts = append(pts, plotter.XY{X: t / div, Y: 0})
		}
		sc, err := plotter.NewScatter(decimate(pts, maxPlotPoints))
		if err != nil {
			return nil, fmt.Errorf("congestion %s: losses: %w", a.File, err)
		}
		sc.GlyphStyle.Color = colorAt(palette, 1)
		sc.GlyphStyle.Shape = draw.CrossGlyph{}
		sc.GlyphStyle.Radius = vg.Points(3.5)
		top.Add(sc)
		top.Legend.Add(fmt.Sprintf("packet lost (%d)", len(a.LossTimes)), sc)
	}
	yFromZero(top, 1.3)

	bottom := newPlot("", "time since trace start ("+unit+")", "RTT (ms)")
	bottom.Legend.Left = true
	if err := addSeries(bottom,
		series{label: "latest RTT", xy: decimate(latest, maxPlotPoints), color: colorAt(greys, 1), step: true, width: vg.Points(0.8)},
		series{label: "smoothed RTT", xy: decimate(srtt, maxPlotPoints), color: colorAt(palette, 2), step: true, width: vg.Points(1.6)},
		series{label: "min RTT", xy: decimate(minRTT, maxPlotPoints), color: colorAt(palette, 6), step: true, width: vg.Points(1.2),
			dashes: []vg.Length{vg.Points(4), vg.Points(2)}},
	); err != nil {
		return nil, fmt.Errorf("congestion %s: %w", a.File, err)
	}
	yFromZero(bottom, 1.35)
	// Same time range on both panels.
	lo, hi := 0.0, max(top.X.Max, bottom.X.Max)
	top.X.Min, bottom.X.Min, top.X.Max, bottom.X.Max = lo, lo, hi, hi

	name := "congestion-" + results.QlogStem(base)
	return &Figure{Name: name, Panels: []*plot.Plot{top, bottom}, Width: figWidth, Height: 2 * figPanelHeight}, nil
}

// QlogGoodputFigure draws the goodput and received QUIC packet rate per bin
// of one qlog file (for a single file, which has no timeseries.csv).
func QlogGoodputFigure(a *ConnAnalysis) (*Figure, error) {
	if !a.Totals.GoodputMbps.Valid() || len(a.Bins) == 0 {
		return nil, fmt.Errorf("goodput %s: %w: no stream bytes received", a.File, errNoData)
	}
	base := path.Base(a.File)
	unit, div := traceTimeUnit(a.DurationMs)
	var good, recv plotter.XYs
	for _, b := range a.Bins {
		t := b.TEndS * 1000 / div
		good = append(good, plotter.XY{X: t, Y: b.GoodputMbps})
		recv = append(recv, plotter.XY{X: t, Y: b.RecvMbps})
	}
	title := fmt.Sprintf("Goodput per %g ms: %s (%s)", a.BinMs, base, a.Vantage)
	p := newPlot(title, "time since trace start ("+unit+")", "rate (Mbit/s)")
	if err := addSeries(p,
		series{label: "QUIC packets received", xy: recv, color: colorAt(greys, 1), width: vg.Points(1)},
		series{label: "goodput (new stream bytes)", xy: good, color: colorAt(palette, 0)},
	); err != nil {
		return nil, fmt.Errorf("goodput %s: %w", a.File, err)
	}
	yFromZero(p, 1.25)
	p.X.Min = 0
	name := "goodput-" + results.QlogStem(base)
	return &Figure{Name: name, Panels: []*plot.Plot{p}, Width: figWidth, Height: figHeight}, nil
}

// RunFigures returns the figures of a run: throughput and utilization from
// timeseries.csv (and, with flow control, each leg's credit:
// flowcontrol_plots.go), the congestion view of each flow's sender qlog,
// and the delay figures (latency_plots.go).
// Figures without data are left out; the notes say which and why.
func RunFigures(ra *RunAnalysis) (figs []*Figure, notes []string, err error) {
	try := func(f *Figure, err error) error {
		if errors.Is(err, errNoData) {
			notes = append(notes, err.Error())
			return nil
		}
		if err != nil {
			return err
		}
		figs = append(figs, f)
		return nil
	}
	if ts := ra.Timeseries; ts != nil {
		if err := try(ThroughputFigure(ts, ra.Run)); err != nil {
			return nil, nil, err
		}
		if err := try(UtilizationFigure(ts, ra.Run)); err != nil {
			return nil, nil, err
		}
		if err := creditFigures(ts, ra.Run, try); err != nil {
			return nil, nil, err
		}
	} else {
		notes = append(notes, "throughput and utilization: no "+results.TimeseriesFile)
	}
	senders := map[string]bool{}
	for _, f := range ra.Flows {
		if f.SenderQlog != "" {
			senders[f.SenderQlog] = true
		}
	}
	for _, a := range ra.Qlogs {
		if !senders[a.File] {
			continue
		}
		if err := try(CongestionFigure(a)); err != nil {
			return nil, nil, err
		}
	}
	if err := ra.latencyFigures(try); err != nil {
		return nil, nil, err
	}
	figs = append(figs, workloadFigures(ra)...)
	return figs, notes, nil
}

// QlogFigures returns the figures for a single qlog file: the congestion
// view and, when it received data, its goodput over time.
func QlogFigures(a *ConnAnalysis) (figs []*Figure, notes []string, err error) {
	for _, mk := range []func(*ConnAnalysis) (*Figure, error){CongestionFigure, QlogGoodputFigure} {
		f, err := mk(a)
		if errors.Is(err, errNoData) {
			notes = append(notes, err.Error())
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		figs = append(figs, f)
	}
	return figs, notes, nil
}

// traceTimeUnit picks milliseconds for traces shorter than two seconds
// (loopback tests) and seconds otherwise; div converts ms to the unit.
func traceTimeUnit(durationMs float64) (unit string, div float64) {
	if durationMs < 2000 {
		return "ms", 1
	}
	return "s", 1000
}

func titled(what, run string) string {
	if run == "" {
		return what
	}
	return what + ": " + run
}
