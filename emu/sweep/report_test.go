package sweep

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

func TestReportAndFigures(t *testing.T) {
	p := testPlan(t, Spec{Scenario: "fairness", Axes: axes(t, "dc.batch=25,100,500", "dc.split=1:1,9:1"), Repeat: 3, Preset: "batch-fairness"})
	dir := prepared(t, p)
	f := &fakeRunner{}
	if _, err := Execute(context.Background(), dir, p, Options{Runner: f.run}); err != nil {
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
	if _, err := Finish(dir); err != nil {
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
