package sweep

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

func TestReportAndFigures(t *testing.T) {
	p := testPlan(t, Spec{Scenario: "fairness", Axes: axes(t, "dc.batch=25,100,500", "dc.split=1:1,9:1"), Repeat: 3, Preset: "batch-fairness"})
	dir := prepared(t, p)
	f := &sweeptest.Runner{}
	if _, err := Execute(context.Background(), dir, p, Options{Runner: f.Run}); err != nil {
		t.Fatal(err)
	}
	// A stale figure from an earlier aggregation goes away.
	if err := os.MkdirAll(filepath.Join(dir, results.FiguresDir), 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, results.FiguresDir, "goodput-old.svg")
	if err := os.WriteFile(stale, []byte("<svg/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The catalog names the preset in the report's title.
	studies := Catalog{PresetsOnly{{Name: "batch-fairness", Title: "DC batch size", Figure: "Fig. 5a (fairness)"}}}
	if _, err := Finish(dir, AggregateOptions{Studies: studies}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("stale figure kept")
	}
	// Per axis: goodput, per-flow goodput, JFI, utilization; SVG and PNG.
	for _, axis := range []string{"dc.batch", "dc.split"} {
		for _, kind := range []string{"goodput", "flows", "jfi", "utilization"} {
			svg, err := os.ReadFile(filepath.Join(dir, results.FiguresDir, kind+"-"+axis+".svg"))
			if err != nil || !bytes.Contains(svg, []byte("<svg")) {
				t.Errorf("%s-%s.svg: %v", kind, axis, err)
			}
			png, err := os.ReadFile(filepath.Join(dir, results.FiguresDir, kind+"-"+axis+".png"))
			if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
				t.Errorf("%s-%s.png: %v", kind, axis, err)
			}
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	// Self-contained: no reference to anything outside the file.
	for _, re := range []string{`(?i)(src|href)\s*=\s*"(https?:|//|[^"d#])`, `(?i)<link\b`, `(?i)<script\b`, `(?i)@import`, `(?i)url\(`} {
		if m := regexp.MustCompile(re).FindString(page); m != "" {
			t.Errorf("report.html refers outside itself: %q", m)
		}
	}
	// html/template writes the + of the media type as &#43;.
	if n := strings.Count(page, `src="data:image/svg&#43;xml;base64,`); n != 8 {
		t.Errorf("%d inlined figures, want 8", n)
	}
	for _, want := range []string{
		"DC batch size (Fig. 5a (fairness))", // the preset's title
		"<code>dc.batch</code>: 25, 100, 500 (base: 100)",
		"<code>flows.0.size</code>", // the base configuration
		"p01-r1", "12 ok", "flow.link2.goodput_mbps",
	} {
		if !strings.Contains(strings.NewReplacer("<b>", "", "</b>", "").Replace(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// A degraded run is counted in sweep.csv, listed with its failed checks in
// report.html and the terminal summary, and left out of the statistics
// unless kept.
func TestReportShowsDegradedRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,500"), Repeat: 3})
		dir := prepared(t, p)
		r := &timedRunner{took: time.Second, degrade: func(id string, _ int) bool { return id == "p02-r2" }}
		if _, err := Execute(context.Background(), dir, p, Options{Runner: r.run}); err != nil {
			t.Fatal(err)
		}
		for _, keep := range []bool{false, true} {
			tab, err := Finish(dir, AggregateOptions{KeepDegraded: keep})
			if err != nil {
				t.Fatal(err)
			}
			rows := sweeptest.ReadCSV(t, dir)
			col := slices.Index(rows[0], "runs_degraded")
			n := slices.Index(rows[0], results.MetricGoodput+"_n")
			if col < 0 || rows[2][col] != "1" || rows[1][col] != "0" {
				t.Errorf("sweep.csv runs_degraded: %v", rows)
			}
			if want := map[bool]string{false: "2", true: "3"}[keep]; rows[2][n] != want {
				t.Errorf("keep %v: n %s, want %s", keep, rows[2][n], want)
			}
			html, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			page := strings.NewReplacer("<b>", "", "</b>", "", `<b class="bad">`, "").Replace(string(html))
			for _, want := range []string{"1 degraded", "Runs whose emulation was degraded", "delay_line.late_p99 link1.down 3.2 (limit 1 ms)", map[bool]string{false: "left out", true: "kept in the statistics"}[keep]} {
				if !strings.Contains(page, want) {
					t.Errorf("keep %v: report.html lacks %q", keep, want)
				}
			}
			var text strings.Builder
			WriteSummary(&text, tab, nil)
			if !strings.Contains(text.String(), "DEGRADED") || !strings.Contains(text.String(), "1 run whose emulation was degraded") {
				t.Errorf("summary:\n%s", text.String())
			}
		}
	})
}
