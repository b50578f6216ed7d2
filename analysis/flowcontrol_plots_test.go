package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

// creditTimeseries is 6 s of a DC run with flow control: both legs at
// 50 Mbit/s, until link2's capacity drops to 0 from 3.0 to 4.0 s; its
// credit falls to 0 (one bin below it) and link1 takes the traffic.
func creditTimeseries(t *testing.T) *results.Timeseries {
	t.Helper()
	var b strings.Builder
	b.WriteString("t_s,link1.down.capacity_mbps,link1.down.throughput_mbps,link1.down.queue_bytes," +
		"link2.down.capacity_mbps,link2.down.throughput_mbps,link2.down.queue_bytes," +
		"link1.up.capacity_mbps,link1.up.throughput_mbps,pdcp.down.buffer_pkts," +
		"pdcp.down.link1.credit_bytes,pdcp.down.link2.credit_bytes\n")
	for i := 1; i <= 60; i++ {
		cap2, thr1, thr2, cr1, cr2 := 50.0, 25.0, 25.0, 300000.0, 300000.0
		if i > 30 && i <= 40 {
			cap2, thr1, thr2, cr1, cr2 = 0, 49, 0, 600000, 0
		}
		if i == 31 {
			cr2 = -3000 // sent more than it granted
		}
		fmt.Fprintf(&b, "%.1f,50,%g,0,%g,%g,0,50,0.4,0,%g,%g\n", float64(i)/10, thr1, cap2, thr2, cr1, cr2)
	}
	ts, err := results.ReadTimeseries(strings.NewReader(b.String()), results.TimeseriesFile)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestCreditFigure: a timeseries with credit columns gets the figure
// credit-down, each leg's credit (with the line at 0) above each leg's
// throughput and capacity; one without them gets none and no note.
func TestCreditFigure(t *testing.T) {
	var figs []*Figure
	var notes []string
	try := func(f *Figure, err error) error {
		if err != nil {
			notes = append(notes, err.Error())
			return nil
		}
		figs = append(figs, f)
		return nil
	}
	if err := creditFigures(creditTimeseries(t), "r", try); err != nil {
		t.Fatal(err)
	}
	if len(figs) != 1 || len(notes) != 0 {
		t.Fatalf("figures %q, notes %q; want credit-down", figureNames(figs), notes)
	}
	f := figs[0]
	if f.Name != "credit-down" || len(f.Panels) != 2 {
		t.Fatalf("figure %s with %d panels, want credit-down with 2", f.Name, len(f.Panels))
	}
	svg := renderBoth(t, f)
	if len(svg) == 0 {
		t.Fatal("empty SVG")
	}
	requireTexts(t, svg, "Flow-control credit and throughput per leg (PDCP down): r",
		"credit (kB)", "rate (Mbit/s)", "time since run start (s)",
		"link1 credit", "link2 credit", "0: leg stopped",
		"link1.down throughput", "link1.down capacity", "link2.down throughput", "link2.down capacity")
	for _, s := range svgTexts(svg) {
		if strings.Contains(s, ".up") {
			t.Errorf("uplink %q plotted", s)
		}
	}
	// Two credits, two throughputs, two capacities.
	if n := linePaths(svg, 50); n != 6 {
		t.Errorf("%d data lines, want 6", n)
	}
	credit, rate := f.Panels[0], f.Panels[1]
	// kB, and the negative credit in view below the line at 0.
	if credit.Y.Max < 600 || credit.Y.Max > 1000 || credit.Y.Min >= -3 {
		t.Errorf("credit axis %g to %g kB, want below -3 to above 600", credit.Y.Min, credit.Y.Max)
	}
	if rate.Y.Min != 0 || rate.Y.Max < 50 {
		t.Errorf("rate axis %g to %g Mbit/s", rate.Y.Min, rate.Y.Max)
	}
	for i, p := range f.Panels {
		if p.X.Min != 0 || p.X.Max != 6 {
			t.Errorf("panel %d: time axis %g to %g s, want 0 to 6", i, p.X.Min, p.X.Max)
		}
	}

	// Without credit columns (the fixture predates flow control): nothing.
	figs, notes = nil, nil
	if err := creditFigures(fairnessRun(t).Timeseries, "r", try); err != nil || len(figs) != 0 || len(notes) != 0 {
		t.Errorf("without credit columns: figures %q, notes %q, %v", figureNames(figs), notes, err)
	}
}

// TestCreditFigureInRunDir: emu analyze of a run directory whose
// timeseries.csv has credit columns writes plots/credit-down.svg and .png
// and shows the figure, with its caption, in report.html.
func TestCreditFigureInRunDir(t *testing.T) {
	dir := fixture(t, "run-fairness")
	path := filepath.Join(dir, results.TimeseriesFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	lines[0] += ",pdcp.down.link1.credit_bytes,pdcp.down.link2.credit_bytes"
	for i := 1; i < len(lines); i++ {
		cr2 := 250000
		if i > 100 && i <= 120 {
			cr2 = 0
		}
		lines[i] += fmt.Sprintf(",%d,%d", 200000+1000*(i%7), cr2)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, w, err := AnalyzeRunDir(dir, RunOptions{SkipQlog: true}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if names := figureNames(w.Figures); !strings.HasPrefix(names+" ", "throughput utilization credit-down ") {
		t.Errorf("figures %s, want credit-down after utilization", names)
	}
	for _, ext := range []string{".svg", ".png"} {
		if st, err := os.Stat(filepath.Join(w.PlotDir, "credit-down"+ext)); err != nil || st.Size() == 0 {
			t.Errorf("credit-down%s: %v", ext, err)
		}
	}
	page, err := os.ReadFile(w.Report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`alt="credit-down"`, "<b>credit-down</b>", "the traffic moving to the other leg", "plots/credit-down.svg"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html has no %q", want)
		}
	}
}
