package paper

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/results"

	"github.com/dc-emu/emu/emu/findings"
)

func testResults() findings.Results {
	return findings.Results{
		"bw-ratio-matched-fairness": fairnessByRatio("bw-ratio-matched-fairness", "link.bw_ratio+dc.split", 0.71, 0.01),
		"bw-ratio-fairness":         fairnessByRatio("bw-ratio-fairness", "link.bw_ratio", 0.52, 0.01),
		"sc-pairs": oneAxis("sc-pairs", "pair", []string{"quic-quic", "quic-tcp"}, func(i int) map[string]findings.Stat {
			return map[string]findings.Stat{results.MetricJFI: st(0.99, 0.01), results.FlowGoodput("quic1"): {Mean: 10, SD: math.NaN(), CI95: math.NaN(), N: 1}}
		}),
	}
}

func testFigures() []findings.Figure {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>`)
	return []findings.Figure{
		{Preset: "bw-ratio-fairness", Name: "jfi-link.bw_ratio", Title: "Jain's fairness index vs link.bw_ratio", SVG: svg},
		{Preset: "bw-ratio-fairness", Name: "flows-link.bw_ratio", Title: "Per-flow goodput vs link.bw_ratio", SVG: svg},
		{Preset: "bw-ratio-fairness", Name: "utilization-link.bw_ratio", Title: "not a metric of the finding", SVG: svg},
		{Preset: "bw-ratio-matched-fairness", Name: findings.FigureStem("jfi", "link.bw_ratio+dc.split"), Title: "JFI matched", SVG: svg},
		{Preset: "sc-pairs", Name: "jfi-pair", Title: "JFI of the pairs", SVG: svg},
	}
}

func testReport() *findings.Report {
	return findings.NewReport(findings.Meta{Scale: "quick", Repeat: 3, WallTime: 3*time.Hour + 25*time.Minute, EmuVersion: "v0.9.0-test",
		Made: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}, Findings(), testResults())
}

// wellFormed parses the page as XML (the template closes every element).
func wellFormed(t *testing.T, page []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict, d.Entity = true, xml.HTMLEntity
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			line, col := d.InputPos()
			lines := strings.Split(string(page), "\n")
			ctx := ""
			if line-1 < len(lines) {
				ctx = lines[line-1]
			}
			t.Fatalf("not well-formed at %d:%d: %v\n%s", line, col, err, ctx)
		}
	}
}

func TestHTML(t *testing.T) {
	rep := testReport()
	page, err := findings.HTML(rep, testResults(), testFigures())
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, page)
	s := string(page)
	// Self-contained: nothing outside the file.
	for _, re := range []string{`(?i)(src|href)\s*=\s*"(https?:|//|[^"d#])`, `(?i)<link\b`, `(?i)<script\b`, `(?i)@import`, `(?i)url\(`} {
		if m := regexp.MustCompile(re).FindString(s); m != "" {
			t.Errorf("the page refers outside itself: %q", m)
		}
	}
	// Every finding, in the summary and as a section.
	for _, f := range rep.Findings {
		for _, want := range []string{`href="#` + f.ID + `"`, `<h2 id="` + f.ID + `">` + escaped(f.Figures+": "+f.Title) + `</h2>`} {
			if !strings.Contains(s, want) {
				t.Errorf("finding %s: the page lacks %q", f.ID, want)
			}
		}
	}
	for _, want := range []string{
		"Scale <b>quick</b>, 3 repeats", "3h25m0s", "v0.9.0-test", "2026-12-01T10:00:00Z",
		"holds in shape but not in magnitude", // fig8bc: 0.71 matched, 0.52 at 50/50
		"0.52 ± 0.01 (n 5)",                   // a table cell and the check's numbers
		"10 (n 1)",                            // a run without a CI
		"JFI of the pairs",                    // a reference shows all of its preset's figures
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Figures: the finding's metrics along its axes, not the others.
	if n := strings.Count(s, `src="data:image/svg&#43;xml;base64,`); n != 4 {
		t.Errorf("%d inlined figures, want 4 (jfi and flows of bw-ratio-fairness, jfi matched, the pairs')", n)
	}
	if strings.Contains(s, "not a metric of the finding") {
		t.Error("a figure of a metric no check reads is shown")
	}
	// Without any results the page is still complete.
	empty, err := findings.HTML(findings.NewReport(findings.Meta{Scale: "paper", Repeat: 10}, Findings(), findings.Results{}), findings.Results{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, empty)
	if !strings.Contains(string(empty), "No results of") || strings.Count(string(empty), `<h2 id="fig`) < 20 {
		t.Error("an empty reproduction lacks its findings")
	}
}

// escaped writes text as html/template escapes it.
func escaped(s string) string {
	return strings.NewReplacer("&", "&amp;", "'", "&#39;", `"`, "&#34;", "<", "&lt;", ">", "&gt;", "+", "&#43;").Replace(s)
}

func TestJSON(t *testing.T) {
	rep := testReport()
	b, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := findings.ReadReport(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Scale != "quick" || back.Repeat != 3 || back.WallTimeS != rep.WallTimeS || len(back.Findings) != len(rep.Findings) {
		t.Errorf("round trip: %+v", back)
	}
	total := 0
	for _, v := range findings.Verdicts() {
		total += back.Counts[v]
	}
	if total != len(Findings()) || back.Counts[findings.ShapeOnly] != 1 {
		t.Errorf("counts %v over %d findings", back.Counts, len(Findings()))
	}
	var f8 *findings.Result
	for i := range back.Findings {
		if back.Findings[i].ID == "fig8bc" {
			f8 = &back.Findings[i]
		}
	}
	if f8 == nil || f8.Verdict != findings.ShapeOnly || len(f8.Checks) != 10 || f8.Checks[0].Numbers[0].Mean != findings.Float(0.71) {
		t.Errorf("fig8bc in the JSON: %+v", f8)
	}
	if _, err := findings.ReadReport([]byte(`{"version": 99}`)); err == nil {
		t.Error("a future version is read")
	}
	// An unknown SD or CI (one run) is null in the JSON.
	nan, _ := findings.Float(math.NaN()).MarshalJSON()
	var f findings.Float
	if string(nan) != "null" || f.UnmarshalJSON(nan) != nil || !math.IsNaN(float64(f)) {
		t.Errorf("NaN: %s, back %v", nan, f)
	}
}
