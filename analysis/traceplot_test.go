package analysis

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/dc-emu/emu/tracefmt"
)

func stepTrace(up bool) *tracefmt.Trace {
	return &tracefmt.Trace{
		Source: "/tmp/x/step-10-30-10mbit.csv",
		Steps: []tracefmt.Step{
			{Down: 10e6, Up: 1e6}, {At: 10 * time.Second, Down: 30e6, Up: 2e6}, {At: 20 * time.Second, Down: 10e6, Up: 1e6},
		},
		End:   30 * time.Second,
		HasUp: up,
	}
}

func TestTraceLineIsAStepPlotInMbps(t *testing.T) {
	l, err := traceLine(stepTrace(false), func(s tracefmt.Step) float64 { return s.Down })
	if err != nil {
		t.Fatal(err)
	}
	want := plotter.XYs{{X: 0, Y: 10}, {X: 10, Y: 30}, {X: 20, Y: 10}, {X: 30, Y: 10}}
	if len(l.XYs) != len(want) {
		t.Fatalf("points %v, want %v", l.XYs, want)
	}
	for i := range want {
		if l.XYs[i] != want[i] {
			t.Errorf("point %d = %v, want %v", i, l.XYs[i], want[i])
		}
	}
	if l.StepStyle != plotter.PostStep {
		t.Errorf("step style %v, want PostStep (hold each value until the next)", l.StepStyle)
	}
}

func TestPlotTrace(t *testing.T) {
	p, err := PlotTrace(stepTrace(true), "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Title.Text != "step-10-30-10mbit.csv" || p.X.Label.Text != "time (s)" || p.Y.Label.Text != "capacity (Mbit/s)" {
		t.Errorf("title %q, axes %q / %q", p.Title.Text, p.X.Label.Text, p.Y.Label.Text)
	}
	if p.X.Max != 30 || p.Y.Max != 30 || p.Y.Min != 0 {
		t.Errorf("axis ranges x ..%v, y %v..%v; want ..30, 0..30", p.X.Max, p.Y.Min, p.Y.Max)
	}

	var svg bytes.Buffer
	if err := WriteTracePlot(&svg, stepTrace(true), "StaticA", "svg"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "StaticA", "time (s)", "capacity (Mbit/s)", ">down<", ">up<"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	var noUp bytes.Buffer
	WriteTracePlot(&noUp, stepTrace(false), "", "svg")
	if strings.Contains(noUp.String(), ">up<") {
		t.Error("uplink drawn for a trace without one")
	}

	var png bytes.Buffer
	if err := WriteTracePlot(&png, stepTrace(false), "", "png"); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG\r\n\x1a\n")) || png.Len() < 1000 {
		t.Errorf("not a PNG: %d bytes starting %q", png.Len(), png.Bytes()[:min(8, png.Len())])
	}
	if err := WriteTracePlot(&png, stepTrace(false), "", "gif"); err == nil {
		t.Error("gif accepted")
	}
	if _, err := PlotTrace(&tracefmt.Trace{}, "empty"); err == nil {
		t.Error("empty trace plotted")
	}
}

func TestTraceFigureDrawsDelayAndLoss(t *testing.T) {
	tr := stepTrace(false)
	tr.HasDelay, tr.HasLoss = true, true
	for i := range tr.Steps {
		tr.Steps[i].Delay = time.Duration(10+10*i) * time.Millisecond
		tr.Steps[i].Loss = 0.01 * float64(i)
	}
	f, err := TraceFigure(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 3 {
		t.Fatalf("%d panels, want capacity, delay and loss", len(f.Panels))
	}
	// The delay panel is in ms, the loss panel in %.
	if d := f.Panels[1]; d.Y.Label.Text != "one-way delay (ms)" || d.Y.Max != 30 {
		t.Errorf("delay panel %q up to %v, want one-way delay (ms) up to 30", d.Y.Label.Text, d.Y.Max)
	}
	if l := f.Panels[2]; l.Y.Label.Text != "loss (%)" || l.Y.Max < 2-1e-9 || l.Y.Max > 2+1e-9 {
		t.Errorf("loss panel %q up to %v, want loss (%%) up to 2", l.Y.Label.Text, l.Y.Max)
	}
	// Each direction's loss, where the trace splits it, is a line of its own.
	tr.HasUpLoss = true
	for i := range tr.Steps {
		tr.Steps[i].UpLoss = 0.05
	}
	f, err = TraceFigure(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if l := f.Panels[2]; l.Y.Max < 5-1e-9 || l.Y.Max > 5+1e-9 {
		t.Errorf("split loss panel up to %v, want 5 (the uplink's 5%%)", l.Y.Max)
	}
	var split bytes.Buffer
	if err := WriteTracePlot(&split, tr, "", "svg"); err != nil {
		t.Fatal(err)
	}
	if s := split.String(); !strings.Contains(s, "up loss") || !strings.Contains(s, "down loss") {
		t.Error("split loss plot lacks the down loss and up loss lines")
	}
	// A delay series alone has no capacity panel.
	series := &tracefmt.Trace{Source: "x.delay", Format: tracefmt.FormatDelay, HasDelay: true, End: time.Second,
		Steps: []tracefmt.Step{{Delay: 5 * time.Millisecond}}}
	var svg bytes.Buffer
	if err := WriteTracePlot(&svg, series, "", "svg"); err != nil {
		t.Fatal(err)
	}
	if s := svg.String(); strings.Contains(s, "capacity") || !strings.Contains(s, "one-way delay (ms)") || !strings.Contains(s, "x.delay") {
		t.Errorf("delay series plot: capacity drawn, or the delay panel or title missing")
	}
}
