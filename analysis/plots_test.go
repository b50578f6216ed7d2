package analysis

import (
	"bytes"
	"fmt"
	"html"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/dc-emu/emu/emu/results"
)

// renderBoth renders a figure as SVG and PNG, checks the PNG decodes at
// the expected size, and keeps both in $EMU_PLOT_DIR when set (to look at).
func renderBoth(t *testing.T, f *Figure) string {
	t.Helper()
	var svg, pngBuf bytes.Buffer
	if err := f.Render(&svg, "svg"); err != nil {
		t.Fatal(err)
	}
	if err := f.Render(&pngBuf, "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(pngBuf.Bytes()))
	if err != nil {
		t.Fatalf("%s.png: %v", f.Name, err)
	}
	if w := img.Bounds().Dx(); w != int(float64(f.Width/vg.Inch)*pngDPI+0.5) {
		t.Errorf("%s.png is %d px wide", f.Name, w)
	}
	if dir := os.Getenv("EMU_PLOT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, f.Name+".svg"), svg.Bytes(), 0o644)
		os.WriteFile(filepath.Join(dir, f.Name+".png"), pngBuf.Bytes(), 0o644)
	}
	if err := f.Render(&bytes.Buffer{}, "pdf"); err == nil {
		t.Error("unknown format accepted")
	}
	return svg.String()
}

// figureNames are the figures' names in order, separated by spaces.
func figureNames(figs []*Figure) string {
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
	}
	return strings.Join(names, " ")
}

var svgText = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)

// svgTexts returns the text elements of an SVG, unescaped.
func svgTexts(svg string) []string {
	var out []string
	for _, m := range svgText.FindAllStringSubmatch(svg, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

func requireTexts(t *testing.T, svg string, want ...string) {
	t.Helper()
	texts := svgTexts(svg)
	for _, w := range want {
		found := false
		for _, s := range texts {
			if s == w {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("SVG has no text %q (has %q)", w, texts)
		}
	}
}

// linePaths counts stroked paths with at least n segments: data series,
// as opposed to axes, ticks and grid lines (2 points each).
func linePaths(svg string, n int) int {
	count := 0
	for _, p := range regexp.MustCompile(`<path d="([^"]*)"`).FindAllStringSubmatch(svg, -1) {
		if strings.Count(p[1], "L") >= n {
			count++
		}
	}
	return count
}

func fairnessRun(t *testing.T) *RunAnalysis {
	t.Helper()
	ra, err := AnalyzeRun(os.DirFS("testdata/run-fairness"), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ra
}

// TestTimeseriesFigures draws the figures of a run's time series from the
// fairness fixture (200 bins).
func TestTimeseriesFigures(t *testing.T) {
	ra := fairnessRun(t)
	for _, tc := range []struct {
		name   string
		figure func(*results.Timeseries, string) (*Figure, error)
		texts  []string
		lines  int
		noUp   bool // the ACK-only uplinks are left out
	}{
		{"throughput", ThroughputFigure, []string{"Goodput per flow and link capacity: 20261130T010203Z-fairness",
			"time since run start (s)", "rate (Mbit/s)",
			"flow dc goodput", "flow sc1 goodput", "flow sc2 goodput", "link1 capacity (down)", "link2 capacity (down)"},
			5, false}, // 3 flows + 2 capacities
		{"utilization", UtilizationFigure, []string{"Link utilization: 20261130T010203Z-fairness", "time since run start (s)",
			"utilization (% of capacity)", "link1.down", "link2.down", "all downlinks"},
			3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.figure(ra.Timeseries, ra.Run)
			if err != nil {
				t.Fatal(err)
			}
			svg := renderBoth(t, f)
			requireTexts(t, svg, tc.texts...)
			for _, s := range svgTexts(svg) {
				if tc.noUp && strings.Contains(s, ".up") {
					t.Errorf("uplink %q plotted", s)
				}
			}
			if n := linePaths(svg, 100); n != tc.lines {
				t.Errorf("%d data lines, want %d", n, tc.lines)
			}
		})
	}
}

func TestCongestionFigure(t *testing.T) {
	for _, name := range []string{"quicgo-server.sqlog", "ngtcp2-server.qlog"} {
		a := analyzeFile(t, "testdata/"+name, QlogOptions{})
		f, err := CongestionFigure(a)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Panels) != 2 {
			t.Fatalf("%d panels", len(f.Panels))
		}
		svg := renderBoth(t, f)
		requireTexts(t, svg, "Congestion window and RTT: "+name+" ("+a.Producer+", server)",
			"window (kB)", "RTT (ms)", "time since trace start (ms)",
			"congestion window", "bytes in flight", "smoothed RTT", "min RTT", "latest RTT")
		lost := "packet lost (31)"
		if strings.HasPrefix(name, "ngtcp2") {
			lost = "packet lost (28)"
		}
		requireTexts(t, svg, lost)
		// cwnd, bytes in flight and three RTT lines.
		if n := linePaths(svg, 20); n < 5 {
			t.Errorf("%s: %d data lines, want 5", name, n)
		}
	}
}

func TestQlogGoodputFigure(t *testing.T) {
	a := analyzeFile(t, "testdata/quicgo-client.sqlog", QlogOptions{Bin: 2e6}) // 2 ms bins
	f, err := QlogGoodputFigure(a)
	if err != nil {
		t.Fatal(err)
	}
	svg := renderBoth(t, f)
	requireTexts(t, svg, "Goodput per 2 ms: quicgo-client.sqlog (client)", "rate (Mbit/s)",
		"goodput (new stream bytes)", "QUIC packets received")
	if n := linePaths(svg, 10); n != 2 {
		t.Errorf("%d data lines, want 2", n)
	}
	srv := analyzeFile(t, "testdata/quicgo-server.sqlog", QlogOptions{})
	if _, err := QlogGoodputFigure(srv); err == nil {
		t.Error("a sender's qlog (1 byte received) has no goodput figure")
	}
}

func TestRunFigures(t *testing.T) {
	ra := fairnessRun(t)
	figs, notes, err := RunFigures(ra)
	if err != nil {
		t.Fatal(err)
	}
	want := "throughput utilization congestion-dc-server congestion-sc1-server"
	// The run predates the delay logs and the lateness column: each of
	// those figures says why it is not there.
	if names := figureNames(figs); names != want || len(notes) != 4 {
		t.Errorf("figures %s notes %q, want %s and 4 notes", names, notes, want)
	}
	// Without timeseries.csv the run still gets its congestion views.
	ra.Timeseries = nil
	figs, notes, err = RunFigures(ra)
	if err != nil || len(figs) != 2 || len(notes) != 2 {
		t.Errorf("without timeseries: %d figures, notes %q, %v", len(figs), notes, err)
	}
}

func TestDecimateKeepsExtremes(t *testing.T) {
	in := make([]float64, 100000)
	for i := range in {
		in[i] = float64(i % 1000)
	}
	in[54321] = 5000 // a spike
	in[77777] = -3   // a dip
	x := make([]float64, len(in))
	for i := range x {
		x[i] = float64(i)
	}
	out := decimate(xyFinite(x, in, 1), 4000)
	if len(out) > 4100 {
		t.Errorf("%d points after decimation", len(out))
	}
	var hasSpike, hasDip bool
	for i, p := range out {
		hasSpike = hasSpike || p.Y == 5000
		hasDip = hasDip || p.Y == -3
		if i > 0 && p.X < out[i-1].X {
			t.Fatal("decimation reordered points")
		}
	}
	if !hasSpike || !hasDip || out[0].X != 0 || out[len(out)-1].X != 99999 {
		t.Errorf("spike %v dip %v ends %v..%v", hasSpike, hasDip, out[0].X, out[len(out)-1].X)
	}
}

// TestDelayFigureMarksJumps: a link's delay trace is drawn beside the
// flows' one-way delay, and each jump of the trace is a vertical line
// across all three panels, named once in the legend.
func TestDelayFigureMarksJumps(t *testing.T) {
	var b strings.Builder
	b.WriteString("t_s,flow.f.goodput_mbps,flow.f.rtt_ms,flow.f.owd_ms,link1.down.trace_delay_ms\n")
	for i := 1; i <= 100; i++ {
		d := 11.0
		if i%40 == 0 {
			d = 20 // a jump smeared over its bin
		}
		fmt.Fprintf(&b, "%.1f,40,%.1f,%.1f,%.1f\n", float64(i)/10, 2*d+5, d+2, d)
	}
	ts, err := results.ReadTimeseries(strings.NewReader(b.String()), "timeseries.csv")
	if err != nil {
		t.Fatal(err)
	}
	f, err := DelayFigure(ts, "r", []float64{3.95, 7.95})
	if err != nil {
		t.Fatal(err)
	}
	svg := renderBoth(t, f)
	requireTexts(t, svg, "link1.down trace delay", "delay trace jump")
	if n := strings.Count(strings.Join(svgTexts(svg), "\n"), "delay trace jump"); n != 1 {
		t.Errorf("legend names the jumps %d times, want once", n)
	}
	// Two jumps on three panels: six dotted vertical lines.
	vertical := regexp.MustCompile(`<path d="M([0-9.]+),[0-9.]+L([0-9.]+),[0-9.]+"[^>]*stroke-dasharray:[^;"]*1`)
	n := 0
	for _, m := range vertical.FindAllStringSubmatch(svg, -1) {
		if m[1] == m[2] {
			n++
		}
	}
	if n != 6 {
		t.Errorf("%d dotted vertical lines, want 6", n)
	}
	// Without jumps, none.
	f, err = DelayFigure(ts, "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	if svg := renderBoth(t, f); strings.Contains(svg, "delay trace jump") {
		t.Error("a jump marked without jumps")
	}
}
