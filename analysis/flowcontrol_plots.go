package analysis

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/dc-emu/emu/emu/results"
)

// creditLegs returns, per PDCP direction ("down", "up") with flow control,
// the legs ("link1", "link2") that have a credit column in timeseries.csv
// (pdcp.<dir>.<link>.credit_bytes), in file order; dirs lists the
// directions in the order of their first column. Both are empty for a run
// without flow control.
func creditLegs(ts *results.Timeseries) (dirs []string, legs map[string][]string) {
	legs = map[string][]string{}
	for _, c := range ts.Columns {
		rest, ok := strings.CutPrefix(c, "pdcp.")
		if !ok {
			continue
		}
		rest, ok = strings.CutSuffix(rest, ".credit_bytes")
		if !ok {
			continue
		}
		dir, link, ok := strings.Cut(rest, ".")
		if !ok || dir == "" || !strings.HasPrefix(link, "link") || results.PDCPCreditSeries(dir, link) != c {
			continue
		}
		if _, seen := legs[dir]; !seen {
			dirs = append(dirs, dir)
		}
		legs[dir] = append(legs[dir], link)
	}
	return dirs, legs
}

// creditFigures adds through try the flow-control figure of each PDCP
// direction whose legs have credit columns; a run without them gets none,
// and no note either (flow control is off, nothing is missing).
func creditFigures(ts *results.Timeseries, run string, try func(*Figure, error) error) error {
	dirs, legs := creditLegs(ts)
	for _, dir := range dirs {
		if err := try(CreditFigure(ts, run, dir, legs[dir])); err != nil {
			return err
		}
	}
	return nil
}

// CreditFigure draws, for the PDCP direction dir ("down") with flow
// control (dc.fc=ddds), each leg's credit over time above each leg's
// throughput and capacity, on a shared time axis: when a leg's rate
// collapses, its credit falls to 0 (the leg is stopped) and the traffic
// moves to the other leg. links are the legs ("link1", "link2"); the
// credit is timeseries.csv's pdcp.<dir>.<link>.credit_bytes, sampled at
// the end of each bin, the rates its link<N>.<dir>.throughput_mbps and
// capacity_mbps per bin. The figure is named credit-<dir>.
func CreditFigure(ts *results.Timeseries, run, dir string, links []string) (*Figure, error) {
	what := "credit " + dir
	credit := newPlot(titled("Flow-control credit and throughput per leg (PDCP "+dir+")", run), "", "credit (kB)")
	rate := newPlot("", "time since run start (s)", "rate (Mbit/s)")
	var credits, rates []series
	for i, l := range links {
		c := colorAt(palette, i)
		credits = append(credits, series{label: l + " credit", xy: xyFinite(ts.T, ts.Column(results.PDCPCreditSeries(dir, l)), 1e-3),
			color: c, width: vg.Points(1.6)})
		ld := l + "." + dir
		rates = append(rates,
			series{label: ld + " throughput", xy: xyFinite(ts.T, ts.Column(results.DirSeries(ld, results.SeriesThroughput)), 1),
				color: c, stepBack: true, width: vg.Points(1.6)},
			series{label: ld + " capacity", xy: xyFinite(ts.T, ts.Column(results.DirSeries(ld, results.SeriesCapacity)), 1),
				color: c, stepBack: true, width: vg.Points(1), dashes: []vg.Length{vg.Points(5), vg.Points(3)}})
	}
	n := 0
	for _, s := range credits {
		n += len(s.xy)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: %w: %s's pdcp.%s.<link>.credit_bytes columns have no values", what, errNoData, results.TimeseriesFile, dir)
	}
	if err := addSeries(credit, credits...); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := addSeries(rate, rates...); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}

	// Credit may go below 0 (a leg that was sent more than it granted);
	// the axis then shows it, and 0 stays in view either way.
	lo := math.Min(0, credit.Y.Min)
	yFromZero(credit, 1.3)
	if lo < 0 {
		credit.Y.Min = lo - 0.05*(credit.Y.Max-lo)
	}
	yFromZero(rate, 1.35)
	hi := math.Max(credit.X.Max, rate.X.Max)
	for _, p := range []*plot.Plot{credit, rate} {
		p.X.Min, p.X.Max = 0, hi
	}
	// The line at 0: at or below it the leg is stopped.
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: hi, Y: 0}})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	zero.Color = color.Gray{Y: 60}
	zero.Width = vg.Points(1)
	zero.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	credit.Add(zero)
	credit.Legend.Add("0: leg stopped", zero)

	return &Figure{Name: "credit-" + dir, Panels: []*plot.Plot{credit, rate}, Width: figWidth, Height: 2 * figPanelHeight}, nil
}
