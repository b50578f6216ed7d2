package analysis

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one image file: one or more plots stacked vertically with their
// x axes aligned (the congestion view has window sizes above RTTs).
type Figure struct {
	// Name is the file stem, e.g. "throughput" → throughput.svg/.png.
	Name   string
	Panels []*plot.Plot
	Width  vg.Length
	Height vg.Length
}

// pngDPI gives 1200×600 px for the default 10×5 in figure: sharp enough
// for slides, small enough for a report.
const pngDPI = 120

// Render writes the figure as "svg" or "png".
func (f *Figure) Render(w io.Writer, format string) error {
	switch format {
	case "svg":
		c := vgsvg.New(f.Width, f.Height)
		f.draw(draw.New(c))
		_, err := c.WriteTo(w)
		return err
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(pngDPI))
		f.draw(draw.New(c))
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	}
	return fmt.Errorf("figure %s: unknown format %q (want svg or png)", f.Name, format)
}

// Encode renders the figure in both formats emu writes, SVG and PNG.
func (f *Figure) Encode() (svg, png []byte, err error) {
	var s, p bytes.Buffer
	if err := f.Render(&s, "svg"); err != nil {
		return nil, nil, err
	}
	if err := f.Render(&p, "png"); err != nil {
		return nil, nil, err
	}
	return s.Bytes(), p.Bytes(), nil
}

func (f *Figure) draw(dc draw.Canvas) {
	if len(f.Panels) == 1 {
		f.Panels[0].Draw(dc)
		return
	}
	rows := make([][]*plot.Plot, len(f.Panels))
	for i, p := range f.Panels {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadY: vg.Points(10)}
	canvases := plot.Align(rows, tiles, dc)
	for i, p := range f.Panels {
		p.Draw(canvases[i][0])
	}
}

// Sizes of the figures.
const (
	figWidth       = 10 * vg.Inch
	figHeight      = 5 * vg.Inch
	figPanelHeight = 3.5 * vg.Inch
)

// newPlot returns a plot with emu's common style: title, axis labels with
// units, a light grid, the legend top left inside the frame.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Title.Padding = vg.Points(6)
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 225}
	grid.Horizontal.Color = color.Gray{Y: 225}
	p.Add(grid)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Legend.YOffs = vg.Points(-4)
	p.Legend.Padding = vg.Points(2)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	return p
}

// series is one line of a plot.
type series struct {
	label  string
	xy     plotter.XYs
	color  color.Color
	width  vg.Length
	dashes []vg.Length
	// step draws a step function. Values stamped at the end of the
	// interval they describe (timeseries.csv, bins) hold back to the
	// previous point (PreStep); event-driven values (metrics_updated) hold
	// forward until the next event (PostStep).
	step, stepBack bool
}

// palette: colour-blind safe (Okabe–Ito) for flows and measured values.
var palette = []color.Color{
	color.RGBA{R: 0, G: 114, B: 178, A: 255},   // blue
	color.RGBA{R: 213, G: 94, B: 0, A: 255},    // vermillion
	color.RGBA{R: 0, G: 158, B: 115, A: 255},   // bluish green
	color.RGBA{R: 204, G: 121, B: 167, A: 255}, // reddish purple
	color.RGBA{R: 230, G: 159, B: 0, A: 255},   // orange
	color.RGBA{R: 86, G: 180, B: 233, A: 255},  // sky blue
	color.RGBA{R: 0, G: 0, B: 0, A: 255},       // black
}

// greys for reference lines (capacities).
var greys = []color.Color{color.Gray{Y: 90}, color.Gray{Y: 150}, color.Gray{Y: 190}}

func colorAt(c []color.Color, i int) color.Color { return c[i%len(c)] }

// PaletteColor is the i-th colour (cycling) of the palette emu's figures
// draw flows and lines in, colour-blind safe (Okabe–Ito).
func PaletteColor(i int) color.Color { return colorAt(palette, i) }

// addSeries adds lines to p (skipping empty ones) and their legend entries.
func addSeries(p *plot.Plot, ss ...series) error {
	for _, s := range ss {
		if len(s.xy) == 0 {
			continue
		}
		xy := s.xy
		if s.stepBack && len(xy) > 1 {
			// The first value also covers the interval before its stamp.
			xy = append(plotter.XYs{{X: xy[0].X - (xy[1].X - xy[0].X), Y: xy[0].Y}}, xy...)
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("%s: %w", s.label, err)
		}
		l.Color = s.color
		l.Width = s.width
		if l.Width == 0 {
			l.Width = vg.Points(1.4)
		}
		l.Dashes = s.dashes
		switch {
		case s.stepBack:
			l.StepStyle = plotter.PreStep
		case s.step:
			l.StepStyle = plotter.PostStep
		}
		p.Add(l)
		if s.label != "" {
			p.Legend.Add(s.label, l)
		}
	}
	return nil
}

// xyFinite pairs x and y, leaving out points where either is NaN or
// infinite (a bin without a measurement is a gap, not a zero).
func xyFinite(x, y []float64, scale float64) plotter.XYs {
	out := make(plotter.XYs, 0, len(x))
	for i := range x {
		if i >= len(y) {
			break
		}
		v := y[i] * scale
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		out = append(out, plotter.XY{X: x[i], Y: v})
	}
	return out
}

// decimate keeps at most about max points of a time-ordered series by
// keeping, per bucket of consecutive points, the first, the minimum, the
// maximum and the last: peaks and drops (a cwnd halving) stay visible in a
// plot of 80 000 events, and the SVG stays small.
func decimate(xy plotter.XYs, max int) plotter.XYs {
	if len(xy) <= max || max < 8 {
		return xy
	}
	per := (len(xy) + max/4 - 1) / (max / 4)
	out := make(plotter.XYs, 0, max+4)
	for start := 0; start < len(xy); start += per {
		end := min(start+per, len(xy))
		lo, hi := start, start
		for i := start; i < end; i++ {
			if xy[i].Y < xy[lo].Y {
				lo = i
			}
			if xy[i].Y > xy[hi].Y {
				hi = i
			}
		}
		idx := []int{start, lo, hi, end - 1}
		if lo > hi {
			idx[1], idx[2] = hi, lo
		}
		prev := -1
		for _, i := range idx {
			if i != prev {
				out = append(out, xy[i])
				prev = i
			}
		}
	}
	return out
}

// yFromZero makes the y axis start at 0 and leaves headroom above the data
// for the legend.
func yFromZero(p *plot.Plot, headroom float64) {
	p.Y.Min = 0
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	p.Y.Max *= headroom
}
