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
	down.Color = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	p.Add(down)
	p.Legend.Add("down", down)
	if t.HasUp {
		up, err := traceLine(t, func(s tracefmt.Step) float64 { return s.Up })
		if err != nil {
			return nil, err
		}
		up.Color = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
		up.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(up)
		p.Legend.Add("up", up)
	}
	p.Legend.Top = true
	return p, nil
}

// WriteTracePlot renders PlotTrace's plot to w as "svg" or "png".
func WriteTracePlot(w io.Writer, t *tracefmt.Trace, title, format string) error {
	if format != "svg" && format != "png" {
		return fmt.Errorf("trace plot format %q: want svg or png", format)
	}
	p, err := PlotTrace(t, title)
	if err != nil {
		return err
	}
	wt, err := p.WriterTo(tracePlotWidth, tracePlotHeight, format)
	if err != nil {
		return fmt.Errorf("render trace plot: %w", err)
	}
	if _, err := wt.WriteTo(w); err != nil {
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
