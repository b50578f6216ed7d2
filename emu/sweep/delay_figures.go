package sweep

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/results"
)

// delayFigures draws Pantheon's view of the sweep (Yan et al., USENIX ATC
// 2018), once for the p95 RTT and once for the p95 one-way delay: every
// point, and every flow of a point with several, at its mean goodput
// against its mean p95 delay over the repeats, with ±1 standard deviation
// both ways. The delay axis is reversed as Pantheon draws it, so better is
// up and to the right.
func delayFigures(t *results.SweepTable) ([]Figure, error) {
	var figs []Figure
	for _, k := range []struct{ name, suffix, what string }{
		{"tput-delay-rtt", rttP95Suffix, "p95 RTT"},
		{"tput-delay-owd", owdP95Suffix, "p95 one-way delay"},
	} {
		f, err := drawDelayFigure(t, k.name, k.suffix, k.what)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", k.name, err)
		}
		if f != nil {
			figs = append(figs, *f)
		}
	}
	return figs, nil
}

// tputDelay is one marker: a point's (or a flow's) means and spreads.
type tputDelay struct {
	x, y, xsd, ysd float64
	label          string
}

func drawDelayFigure(t *results.SweepTable, name, suffix, what string) (*Figure, error) {
	var flows []string
	for _, m := range t.Metrics {
		if f, ok := strings.CutSuffix(strings.TrimPrefix(m, "flow."), suffix); ok && strings.HasPrefix(m, "flow.") {
			if slices.Contains(t.Metrics, results.FlowGoodput(f)) {
				flows = append(flows, f)
			}
		}
	}
	type line struct {
		flow string
		pts  []tputDelay
	}
	var lines []line
	for _, f := range flows {
		l := line{flow: f}
		for _, r := range t.Rows {
			d, g := r.Stats["flow."+f+suffix], r.Stats[results.FlowGoodput(f)]
			if d.N == 0 || g.N == 0 || !finite(d.Mean) || !finite(g.Mean) {
				continue
			}
			l.pts = append(l.pts, tputDelay{x: d.Mean, y: g.Mean, xsd: zeroNaN(d.SD), ysd: zeroNaN(g.SD), label: pointLabel(t.Plan, r.Point)})
		}
		if len(l.pts) > 0 {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return nil, nil
	}
	title := "Goodput vs " + what
	p := newPlot(title, what+" (ms), reversed: better is to the right", "goodput (Mbit/s)")
	p.X.Scale = plot.InvertedScale{Normalizer: p.X.Scale}
	p.Title.Padding = vg.Points(6)
	p.Legend.Left, p.Legend.XOffs, p.Legend.YOffs = false, vg.Points(-10), vg.Points(-4)
	for i, l := range lines {
		xy := make(plotter.XYs, len(l.pts))
		var xe plotter.XErrors
		var ye plotter.YErrors
		labels := make([]string, len(l.pts))
		for j, pt := range l.pts {
			xy[j] = plotter.XY{X: pt.x, Y: pt.y}
			xe = append(xe, struct{ Low, High float64 }{pt.xsd, pt.xsd})
			ye = append(ye, struct{ Low, High float64 }{pt.ysd, pt.ysd})
			labels[j] = pt.label
		}
		c := analysis.PaletteColor(i)
		s, err := newErrorScatter(xy, xe, ye, labels, c, c)
		if err != nil {
			return nil, err
		}
		p.Add(s.xbars, s.ybars, s.markers, s.labels)
		p.Legend.Add("flow "+l.flow, s.markers)
	}
	// Room for the labels and the error bars around the markers.
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for _, pt := range l.pts {
			xlo, xhi = math.Min(xlo, pt.x-pt.xsd), math.Max(xhi, pt.x+pt.xsd)
			ylo, yhi = math.Min(ylo, pt.y-pt.ysd), math.Max(yhi, pt.y+pt.ysd)
		}
	}
	pad := math.Max((xhi-xlo)*0.15, 1)
	p.X.Min, p.X.Max = math.Max(0, xlo-pad), xhi+pad
	p.Y.Min, p.Y.Max = 0, math.Max(yhi*1.15, 1)
	return encodeFigure(name, title,
		"Pantheon's view: each point (each flow, when points have several) at its mean goodput against its mean "+what+
			" over the point's runs that ended ok; error bars ±1 standard deviation; the delay axis is reversed. "+results.CSVFile+" has the 95 % confidence intervals.",
		p, 5*vg.Inch)
}

// pointLabel is a point's values on the axes, "25" or "25, 3:1".
func pointLabel(p *results.Plan, pt *results.Point) string {
	if pt == nil {
		return ""
	}
	var parts []string
	for _, a := range p.Vary {
		parts = append(parts, p.Label(pt, a))
	}
	if len(parts) == 0 {
		return pt.ID
	}
	return strings.Join(parts, ", ")
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
