package analysis

import (
	"fmt"
	"image/color"
	"io"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/dc-emu/emu/tracefmt"
)

// Default size of a trace plot: wide, since traces are long.
const (
	tracePlotWidth  = 8 * vg.Inch
	tracePlotHeight = 3.5 * vg.Inch
)

// PlotTrace draws a trace's capacity over time as a step plot: downlink
// (and uplink, if the trace has one) in Mbit/s against seconds since the
// trace's start, each step drawn flat for as long as it lasts. An empty
// title means the trace's file name.
func PlotTrace(t *tracefmt.Trace, title string) (*plot.Plot, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if title == "" {
		title = filepath.Base(t.Source)
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "capacity (Mbit/s)"
	p.Y.Min = 0
	p.Add(plotter.NewGrid())

	down, err := traceLine(t, func(s tracefmt.Step) float64 { return s.Down })
	if err != nil {
		return nil, err
	}
	down.Color = blue()
	p.Add(down)
	p.Legend.Add("down", down)
	if t.HasUp {
		up, err := traceLine(t, func(s tracefmt.Step) float64 { return s.Up })
		if err != nil {
			return nil, err
		}
		up.Color = red()
		up.Dashes = dashed()
		p.Add(up)
		p.Legend.Add("up", up)
	}
	p.Legend.Top = true
	return p, nil
}

// TraceFigure stacks a trace's panels: its capacity (PlotTrace; left out
// for a delay or loss series, which carries no rate), its one-way delay in
// ms when it carries delay, and its loss in % when it carries loss, with
// their time axes aligned.
func TraceFigure(t *tracefmt.Trace, title string) (*Figure, error) {
	f := &Figure{Name: "trace", Width: tracePlotWidth, Height: tracePlotHeight}
	rateless := t.Format == tracefmt.FormatDelay || t.Format == tracefmt.FormatLoss
	if !rateless {
		p, err := PlotTrace(t, title)
		if err != nil {
			return nil, err
		}
		f.Panels = append(f.Panels, p)
	} else if err := t.Validate(); err != nil {
		return nil, err
	}
	if title == "" {
		title = filepath.Base(t.Source)
	}
	panel := func(ylabel string, lines ...namedLine) error {
		p := plot.New()
		if len(f.Panels) == 0 {
			p.Title.Text = title
		}
		p.X.Label.Text = "time (s)"
		p.Y.Label.Text = ylabel
		p.Y.Min = 0
		p.Add(plotter.NewGrid())
		for _, nl := range lines {
			l, err := traceLine(t, nl.value)
			if err != nil {
				return err
			}
			l.Color = nl.color
			l.Dashes = nl.dashes
			p.Add(l)
			p.Legend.Add(nl.name, l)
		}
		p.Legend.Top = true
		f.Panels = append(f.Panels, p)
		return nil
	}
	if t.HasDelay {
		// In ns: traceLine's division by 10^6 gives ms.
		lines := []namedLine{{"delay", func(s tracefmt.Step) float64 { return float64(s.Delay) }, blue(), nil}}
		if t.HasUpDelay {
			lines[0].name = "down delay"
			lines = append(lines, namedLine{"up delay", func(s tracefmt.Step) float64 { return float64(s.UpDelay) }, red(), dashed()})
		}
		if err := panel("one-way delay (ms)", lines...); err != nil {
			return nil, err
		}
	}
	if t.HasLoss {
		lines := []namedLine{{"loss", func(s tracefmt.Step) float64 { return s.Loss * 1e8 }, blue(), nil}}
		if t.HasUpLoss {
			lines[0].name = "down loss"
			lines = append(lines, namedLine{"up loss", func(s tracefmt.Step) float64 { return s.UpLoss * 1e8 }, red(), dashed()})
		}
		if err := panel("loss (%)", lines...); err != nil {
			return nil, err
		}
	}
	if len(f.Panels) == 0 {
		return nil, fmt.Errorf("trace plot: %s carries neither rate, delay nor loss", t.Source)
	}
	f.Height = tracePlotHeight * vg.Length(len(f.Panels))
	return f, nil
}

// namedLine is one line of a trace panel: its legend, the value of a step
// (in millionths of the axis unit, as traceLine divides by 10^6), its style.
type namedLine struct {
	name   string
	value  func(tracefmt.Step) float64
	color  color.Color
	dashes []vg.Length
}

// The trace plots' styles: downlink blue and solid, uplink red and dashed.
func blue() color.Color   { return color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff} }
func red() color.Color    { return color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff} }
func dashed() []vg.Length { return []vg.Length{vg.Points(4), vg.Points(2)} }

// WriteTracePlot renders TraceFigure's panels to w as "svg" or "png".
func WriteTracePlot(w io.Writer, t *tracefmt.Trace, title, format string) error {
	if format != "svg" && format != "png" {
		return fmt.Errorf("trace plot format %q: want svg or png", format)
	}
	f, err := TraceFigure(t, title)
	if err != nil {
		return err
	}
	if err := f.Render(w, format); err != nil {
		return fmt.Errorf("write trace plot: %w", err)
	}
	return nil
}

// traceLine is one direction's capacity as a post-step line: each point
// holds until the next, and a last point at the trace's end closes the last
// step.
func traceLine(t *tracefmt.Trace, rate func(tracefmt.Step) float64) (*plotter.Line, error) {
	pts := make(plotter.XYs, 0, len(t.Steps)+1)
	for _, s := range t.Steps {
		pts = append(pts, plotter.XY{X: s.At.Seconds(), Y: rate(s) / 1e6})
	}
	last := t.Steps[len(t.Steps)-1]
	pts = append(pts, plotter.XY{X: t.End.Seconds(), Y: rate(last) / 1e6})
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, fmt.Errorf("trace plot: %w", err)
	}
	l.StepStyle = plotter.PostStep
	l.Width = vg.Points(1)
	return l, nil
}
