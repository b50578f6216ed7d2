package sweep

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	gpalette "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/dc-emu/emu/emu/results"
)

// relMax is the top of the heat map's colour scale: relative goodput 1
// (as good as the baseline) is its white middle, 2 (two links each as
// good as the baseline's) its darkest blue; higher values share that
// colour and are written in their cell.
const relMax = 2.0

// heatmapFigure draws, for a grid with a baseline axis and two other
// axes, the mean relative goodput over those two axes (the first as x,
// the second as y) in one panel per value of the baseline axis other than
// the baseline, side by side; nil for any other plan.
func heatmapFigure(t *results.SweepTable) (*Figure, error) {
	p := t.Plan
	b, err := baselineAxis(p.Vary, p.Grid)
	if err != nil || b < 0 || len(p.Vary) != 3 {
		return nil, nil
	}
	var xy []results.Axis
	for i, a := range p.Vary {
		if i != b {
			xy = append(xy, a)
		}
	}
	ax, ay, base := xy[0], xy[1], p.Vary[b]
	cm := gpalette.Reverse(moreland.SmoothBlueRed()) // red below 1, blue above
	cm.SetMin(0)
	cm.SetMax(relMax)
	var panels []HeatPanel
	for _, v := range base.Values {
		if v != base.Baseline {
			panels = append(panels, HeatPanel{Title: v + " ÷ " + base.Baseline, Match: func(r *results.SweepRow) bool { return r.Labels[base.Key] == v }})
		}
	}
	if len(panels) == 0 {
		return nil, nil
	}
	name := "relative-goodput-" + results.FileSlug(ax.Key) + "-" + results.FileSlug(ay.Key)
	f := &Figure{Name: name, Title: "Relative goodput over " + ax.Key + " × " + ay.Key,
		Caption: fmt.Sprintf("Mean relative goodput per point: total goodput ÷ the mean goodput of the %s=%s point at the same %s and %s. Red: below %s, white: equal, blue: above; the scale ends at %g. Grey: no runs.",
			base.Key, base.Baseline, ax.Key, ay.Key, base.Baseline, relMax)}
	f.SVG, f.PNG, _, err = HeatMap(t, ax, ay, results.MetricRelativeGoodput, panels, cm, relMax, "relative goodput")
	return f, err
}

// A HeatPanel is one panel of a heat map: its title, and the rows whose
// means fill its cells.
type HeatPanel struct {
	Title string
	Match func(*results.SweepRow) bool
}

// HeatMap draws panels side by side over the values of x (x axis) and y,
// each cell the mean of metric in the rows its panel matches, written in
// it (grey where no row has one), coloured by cm from 0 to max, with cm's
// colour bar, named label, on the right; as SVG and PNG. filled counts
// the cells with a value over all panels. Studies draw their maps with
// it, as the engine draws relative goodput.
func HeatMap(t *results.SweepTable, x, y results.Axis, metric string, panels []HeatPanel, cm gpalette.ColorMap, max float64, label string) (svg, png []byte, filled int, err error) {
	var pls []*plot.Plot
	for _, p := range panels {
		g, cells := fillGrid(t, x, y, metric, p.Match)
		filled += len(cells.XYs)
		pl, err := heatPanel(p.Title, x, y, g, cells, cm, max)
		if err != nil {
			return nil, nil, 0, err
		}
		pls = append(pls, pl)
	}
	svg, png, err = renderHeatPanels(pls, cm, label)
	return svg, png, filled, err
}

// fillGrid is a heat map's cells over ax (x) and ay (y): the mean of
// metric in the rows that match, written with two decimals; NaN where no
// row has a value.
func fillGrid(t *results.SweepTable, ax, ay results.Axis, metric string, match func(*results.SweepRow) bool) (*relGrid, plotter.XYLabels) {
	g := &relGrid{nx: len(ax.Values), ny: len(ay.Values), z: make([]float64, len(ax.Values)*len(ay.Values))}
	for i := range g.z {
		g.z[i] = math.NaN()
	}
	var cells plotter.XYLabels
	for i := range t.Rows {
		r := &t.Rows[i]
		if !match(r) {
			continue
		}
		xi, yi := slices.Index(ax.Values, r.Labels[ax.Key]), slices.Index(ay.Values, r.Labels[ay.Key])
		st := r.Stats[metric]
		if xi < 0 || yi < 0 || st.N == 0 || math.IsNaN(st.Mean) {
			continue
		}
		g.z[yi*g.nx+xi] = st.Mean
		cells.XYs = append(cells.XYs, plotter.XY{X: float64(xi), Y: float64(yi)})
		cells.Labels = append(cells.Labels, strconv.FormatFloat(st.Mean, 'f', 2, 64))
	}
	return g, cells
}

// heatPanel is one panel of a heat map: the grid g over ax (x) and ay
// (y), each cell with a value written in it, coloured by cm from 0 to max.
func heatPanel(title string, ax, ay results.Axis, g *relGrid, cells plotter.XYLabels, cm gpalette.ColorMap, max float64) (*plot.Plot, error) {
	pl := newPlot(title, ax.Key, ay.Key)
	pl.Legend = plot.NewLegend()
	pl.NominalX(ax.Values...)
	pl.NominalY(ay.Values...)
	hm := plotter.NewHeatMap(g, cm.Palette(255))
	hm.Min, hm.Max = 0, max
	hm.Overflow = cm.Palette(255).Colors()[254]
	hm.NaN = color.Gray{Y: 235}
	pl.Add(hm)
	if len(cells.XYs) > 0 {
		lb, err := plotter.NewLabels(cells)
		if err != nil {
			return nil, err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].XAlign, lb.TextStyle[i].YAlign = text.XCenter, text.YCenter
			lb.TextStyle[i].Font = font.From(lb.TextStyle[i].Font, vg.Points(10))
		}
		pl.Add(lb)
	}
	pl.X.Min, pl.X.Max = -0.5, float64(len(ax.Values))-0.5
	pl.Y.Min, pl.Y.Max = -0.5, float64(len(ay.Values))-0.5
	return pl, nil
}

// renderHeatPanels draws heat-map panels side by side with cm's colour
// bar, named label, on their right, as SVG and PNG.
func renderHeatPanels(panels []*plot.Plot, cm gpalette.ColorMap, label string) (svgOut, pngOut []byte, err error) {
	bar := plot.New()
	bar.HideX()
	bar.Y.Label.Text = label
	bar.Y.Label.TextStyle.Font.Size = vg.Points(11)
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	w, h := vg.Length(len(panels))*4.6*vg.Inch+1.2*vg.Inch, 4.4*vg.Inch
	drawAll := func(c draw.Canvas) {
		barW := 1.1 * vg.Inch
		left := draw.Crop(c, 0, -barW, 0, 0)
		tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Points(18), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4)}
		canvases := plot.Align([][]*plot.Plot{panels}, tiles, left)
		for i, pl := range panels {
			pl.Draw(canvases[0][i])
		}
		bar.Draw(draw.Crop(c, c.Max.X-c.Min.X-barW+vg.Points(12), -vg.Points(8), vg.Points(36), -vg.Points(28)))
	}
	var svg, png bytes.Buffer
	sc := vgsvg.New(w, h)
	drawAll(draw.New(sc))
	if _, err := sc.WriteTo(&svg); err != nil {
		return nil, nil, err
	}
	ic := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(120))
	drawAll(draw.New(ic))
	if _, err := (vgimg.PngCanvas{Canvas: ic}).WriteTo(&png); err != nil {
		return nil, nil, err
	}
	return svg.Bytes(), png.Bytes(), nil
}

// relGrid is a heat map's cells: x and y are the positions of the axes'
// values, z row by row (NaN: no runs).
type relGrid struct {
	nx, ny int
	z      []float64
}

func (g *relGrid) Dims() (c, r int)   { return g.nx, g.ny }
func (g *relGrid) Z(c, r int) float64 { return g.z[r*g.nx+c] }
func (g *relGrid) X(c int) float64    { return float64(c) }
func (g *relGrid) Y(r int) float64    { return float64(r) }
