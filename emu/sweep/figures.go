package sweep

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

// Figure is one rendered figure of a sweep.
type Figure struct {
	Name    string // file stem in figures/
	Title   string
	Caption string
	SVG     []byte
	PNG     []byte
}

// Figures draws, for every axis, the paper's kind of figure: total goodput
// against the axis's values with error bars (±1 standard deviation over the
// point's runs, as the paper plots them), each flow's goodput and Jain's
// index when points have several flows, and the goodput utilization of the
// bottleneck. Along a grid, each combination of the other axes' values is
// its own line. The x axis is categorical: the values in the order given.
// A grid with a baseline axis and two others also gets the heat map of
// relative goodput (heatmap.go).
// The studies' own figures follow it (Study.Figures). Then, once per
// sweep, goodput against p95 RTT and one-way delay (delay_figures.go).
func Figures(t *results.SweepTable, studies Catalog) ([]Figure, error) {
	var figs []Figure
	multi := MaxFlows(t) > 1
	units := keyUnits(t.Plan.Scenario)
	for _, a := range t.Plan.Vary {
		groups := groupsAlong(t, a)
		xlabel := a.Key
		if u := units[a.Key]; u != "" && allNumbers(a.Values) {
			xlabel += " (" + u + ")"
		}
		slug := results.FileSlug(a.Key)
		var specs []figSpec
		specs = append(specs, figSpec{name: "goodput-" + slug, title: "Goodput vs " + a.Key, metric: results.MetricGoodput, perGroup: true})
		if multi {
			if len(groups) == 1 {
				specs = append(specs, figSpec{name: "flows-" + slug, title: "Per-flow goodput vs " + a.Key, flows: true, group: 0})
			} else if len(groups) <= 12 {
				for gi, g := range groups {
					specs = append(specs, figSpec{name: fmt.Sprintf("flows-%s-%d", slug, gi+1),
						title: "Per-flow goodput vs " + a.Key + " at " + g.name, flows: true, group: gi})
				}
			}
			specs = append(specs, figSpec{name: "jfi-" + slug, title: "Jain's fairness index vs " + a.Key, metric: results.MetricJFI, perGroup: true})
		}
		specs = append(specs, figSpec{name: "utilization-" + slug, title: "Bottleneck utilization vs " + a.Key, metric: results.MetricUtilization, perGroup: true})
		specs = append(specs, workloadSpecs(t, slug, a.Key)...)
		for _, s := range specs {
			f, err := drawFigure(t, a, groups, s, xlabel)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", s.name, err)
			}
			if f != nil {
				figs = append(figs, *f)
			}
		}
	}
	hm, err := heatmapFigure(t)
	if err != nil {
		return nil, fmt.Errorf("relative goodput heat map: %w", err)
	}
	if hm != nil {
		figs = append(figs, *hm)
	}
	own, err := studies.figures(t)
	if err != nil {
		return nil, err
	}
	figs = append(figs, own...)
	trade, err := tradeoffFigures(t)
	if err != nil {
		return nil, err
	}
	figs = append(figs, trade...)
	more, err := delayFigures(t)
	if err != nil {
		return nil, err
	}
	return append(figs, more...), nil
}

// figSpec says what one figure shows: one metric with a line per group,
// or every flow's goodput within one group.
type figSpec struct {
	name, title string
	metric      string
	perGroup    bool
	flows       bool
	group       int
}

// group is one line along an axis: the points that share their values on
// every other axis, by their value on this one.
type group struct {
	name   string
	points map[string]*results.SweepRow // axis value → row
}

func groupsAlong(t *results.SweepTable, a results.Axis) []group {
	var out []group
	index := map[string]int{}
	for i := range t.Rows {
		r := &t.Rows[i]
		v, ok := r.Point.Labels[a.Key]
		if !ok {
			continue
		}
		name := ""
		if t.Plan.Grid {
			var parts []string
			for _, b := range t.Plan.Vary {
				if b.Key != a.Key {
					parts = append(parts, b.Key+"="+t.Plan.Label(r.Point, b))
				}
			}
			name = strings.Join(parts, " ")
		}
		gi, ok := index[name]
		if !ok {
			gi = len(out)
			index[name] = gi
			out = append(out, group{name: name, points: map[string]*results.SweepRow{}})
		}
		out[gi].points[v] = r
	}
	return out
}

// line is one series of a figure.
type line struct {
	label string
	xy    plotter.XYs
	errs  plotter.YErrors
}

func drawFigure(t *results.SweepTable, a results.Axis, groups []group, s figSpec, xlabel string) (*Figure, error) {
	var lines []line
	series := func(label, metric string, g group) line {
		l := line{label: label}
		for xi, v := range a.Values {
			r, ok := g.points[v]
			if !ok {
				continue
			}
			st := r.Stats[metric]
			if st.N == 0 || math.IsNaN(st.Mean) || math.IsInf(st.Mean, 0) {
				continue
			}
			sd := zeroNaN(st.SD)
			l.xy = append(l.xy, plotter.XY{X: float64(xi), Y: st.Mean})
			l.errs = append(l.errs, struct{ Low, High float64 }{sd, sd})
		}
		return l
	}
	switch {
	case s.flows:
		g := groups[s.group]
		for _, m := range t.Metrics {
			if f, ok := results.GoodputFlow(m); ok {
				lines = append(lines, series(f, m, g))
			}
		}
	default:
		for _, g := range groups {
			lines = append(lines, series(g.name, s.metric, g))
		}
	}
	var nonEmpty []line
	for _, l := range lines {
		if len(l.xy) > 0 {
			nonEmpty = append(nonEmpty, l)
		}
	}
	if len(nonEmpty) == 0 {
		return nil, nil
	}
	ylabel := metricLabel(s.metric)
	if s.flows {
		ylabel = "goodput (Mbit/s)"
	}
	p := newPlot(s.title, xlabel, ylabel)
	p.NominalX(a.Values...)
	p.X.Min, p.X.Max = -0.5, float64(len(a.Values))-0.5
	k := len(nonEmpty)
	for i, l := range nonEmpty {
		// Lines side by side spread a little so their error bars do not
		// hide each other.
		off := 0.0
		if k > 1 {
			off = (float64(i) - float64(k-1)/2) * math.Min(0.08, 0.6/float64(k))
		}
		xy := make(plotter.XYs, len(l.xy))
		for j, pt := range l.xy {
			xy[j] = plotter.XY{X: pt.X + off, Y: pt.Y}
		}
		c := analysis.PaletteColor(i)
		ln, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		ln.Color, ln.Width = c, vg.Points(1.4)
		pts.Color, pts.Shape = c, draw.CircleGlyph{}
		eb, err := plotter.NewYErrorBars(errPoints{xy, l.errs})
		if err != nil {
			return nil, err
		}
		eb.Color = c
		eb.CapWidth = vg.Points(6)
		p.Add(ln, pts, eb)
		if l.label != "" {
			p.Legend.Add(l.label, ln, pts)
		}
	}
	p.Y.Min = 0
	if s.metric == results.MetricJFI || s.metric == results.MetricUtilization {
		p.Y.Max = math.Max(p.Y.Max, 1)
	}
	// Headroom above the data for the legend in the top left corner.
	entries := 0
	for _, l := range nonEmpty {
		if l.label != "" {
			entries++
		}
	}
	p.Y.Max *= 1.08 + 0.06*float64(entries)
	return encodeFigure(s.name, s.title,
		"Mean over the point's runs that ended ok; error bars ±1 standard deviation ("+results.CSVFile+" has the 95 % confidence intervals).",
		p, 4.5*vg.Inch)
}

// encodeFigure renders p, 8 inches wide, as the SVG and PNG of a Figure.
func encodeFigure(name, title, caption string, p *plot.Plot, height vg.Length) (*Figure, error) {
	af := &analysis.Figure{Name: name, Panels: []*plot.Plot{p}, Width: 8 * vg.Inch, Height: height}
	svg, png, err := af.Encode()
	if err != nil {
		return nil, err
	}
	return &Figure{Name: name, Title: title, Caption: caption, SVG: svg, PNG: png}, nil
}

// errorScatter is the points of a goodput-against-delay figure: markers
// in one colour, ±1 standard deviation error bars both ways and a label
// beside each point. Callers add its parts to a plot in the order they
// draw.
type errorScatter struct {
	markers *plotter.Scatter
	xbars   *plotter.XErrorBars
	ybars   *plotter.YErrorBars
	labels  *plotter.Labels
}

// newErrorScatter draws the markers and bars in c and the labels in
// labelColor (nil: black).
func newErrorScatter(xy plotter.XYs, xe plotter.XErrors, ye plotter.YErrors, labels []string, c, labelColor color.Color) (errorScatter, error) {
	var s errorScatter
	var err error
	if s.markers, err = plotter.NewScatter(xy); err != nil {
		return s, err
	}
	s.markers.GlyphStyle.Color, s.markers.GlyphStyle.Shape, s.markers.GlyphStyle.Radius = c, draw.CircleGlyph{}, vg.Points(3.5)
	if s.xbars, err = plotter.NewXErrorBars(xErrPoints{xy, xe}); err != nil {
		return s, err
	}
	if s.ybars, err = plotter.NewYErrorBars(errPoints{xy, ye}); err != nil {
		return s, err
	}
	s.xbars.Color, s.ybars.Color = c, c
	if s.labels, err = plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels}); err != nil {
		return s, err
	}
	for i := range s.labels.TextStyle {
		s.labels.TextStyle[i].Font.Size = vg.Points(8)
		s.labels.TextStyle[i].Color = labelColor
	}
	s.labels.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(3)}
	return s, nil
}

type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

type xErrPoints struct {
	plotter.XYs
	plotter.XErrors
}

// zeroNaN is v, or 0 for NaN (the standard deviation of a single run).
func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = color.Gray{Y: 225}
	p.Add(grid)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	return p
}

// keyUnits maps the canonical keys of a scenario to their units, for axis
// labels.
func keyUnits(scenario string) map[string]string {
	m := map[string]string{}
	cfg, err := config.DefaultConfig(scenario)
	if err != nil {
		return m
	}
	for _, p := range config.Params(&cfg) {
		m[p.Key] = p.Unit
	}
	return m
}

// allNumbers reports whether every value is a bare number (its unit then
// belongs in the axis label).
func allNumbers(vs []string) bool {
	for _, v := range vs {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return false
		}
	}
	return true
}
