package sweep

import (
	"math"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/results"
)

// tradeoffFigures draw, for a sweep with interactive flows (rr latency or
// cbr one-way delay) beside bulk ones, each bulk flow's goodput against
// each interactive flow's p95 delay: one point per sweep point, with ±1
// standard deviation both ways, labelled with the point's values — the
// scheduler-combination view of the steering preset.
func tradeoffFigures(t *results.SweepTable) ([]Figure, error) {
	// Interactive flows: rr flows (their latency) and cbr flows (their
	// one-way delay; only cbr flows have a jitter). Every flow may have an
	// owd_p95_ms, so that alone does not make one interactive.
	var delays, goodputs []string
	interactive := map[string]bool{}
	has := map[string]bool{}
	for _, m := range t.Metrics {
		has[m] = true
	}
	for _, m := range t.Metrics {
		name, ok := strings.CutPrefix(m, "flow.")
		if !ok {
			continue
		}
		if n, ok := strings.CutSuffix(name, ".latency_p95_ms"); ok {
			delays, interactive[n] = append(delays, m), true
		}
		if n, ok := strings.CutSuffix(name, ".owd_p95_ms"); ok && has["flow."+n+".jitter_ms"] {
			delays, interactive[n] = append(delays, m), true
		}
	}
	for _, m := range t.Metrics {
		if f, ok := results.GoodputFlow(m); ok && !interactive[f] {
			goodputs = append(goodputs, m)
		}
	}
	var figs []Figure
	for _, dm := range delays {
		for _, gm := range goodputs {
			f, err := tradeoffFigure(t, dm, gm)
			if err != nil {
				return nil, err
			}
			if f != nil {
				figs = append(figs, *f)
			}
		}
	}
	return figs, nil
}

func tradeoffFigure(t *results.SweepTable, dm, gm string) (*Figure, error) {
	var xy plotter.XYs
	var xerr plotter.XErrors
	var yerr plotter.YErrors
	var labels []string
	for _, r := range t.Rows {
		x, y := r.Stats[dm], r.Stats[gm]
		if x.N == 0 || y.N == 0 || math.IsNaN(x.Mean) || math.IsNaN(y.Mean) {
			continue
		}
		xy = append(xy, plotter.XY{X: x.Mean, Y: y.Mean})
		xerr = append(xerr, struct{ Low, High float64 }{zeroNaN(x.SD), zeroNaN(x.SD)})
		yerr = append(yerr, struct{ Low, High float64 }{zeroNaN(y.SD), zeroNaN(y.SD)})
		var parts []string
		for _, a := range t.Plan.Vary {
			parts = append(parts, r.Labels[a.Key])
		}
		labels = append(labels, strings.Join(parts, " "))
	}
	if len(xy) < 2 {
		return nil, nil
	}
	gf, _ := results.GoodputFlow(gm)
	name := "tradeoff-" + results.FileSlug(gf) + "-" + results.FileSlug(strings.TrimPrefix(dm, "flow."))
	title := metricLabel(gm) + " against " + metricLabel(dm)
	p := newPlot(title, metricLabel(dm), metricLabel(gm))
	s, err := newErrorScatter(xy, xerr, yerr, labels, analysis.PaletteColor(0), nil)
	if err != nil {
		return nil, err
	}
	p.Add(s.markers, s.xbars, s.ybars, s.labels)
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max *= 1.25
	p.Y.Max *= 1.1
	return encodeFigure(name, title,
		"One point per sweep point (its axis values beside it): means over the point's runs, error bars ±1 standard deviation both ways.",
		p, 5*vg.Inch)
}
