package findings

import (
	"bytes"
	"fmt"
	"html/template"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// Figure is one figure of a preset's sweep, as the sweep drew it.
type Figure struct {
	Preset string // the preset whose sweep drew it
	Name   string // file stem in the sweep's figures/: goodput-dc.batch, flows-dc.batch-2
	Title  string
	SVG    []byte
}

// FigureStem is the file stem of a sweep figure of one kind (goodput,
// flows, jfi, utilization) along an axis, as emu/sweep names it; a
// grid's per-group flow figures add "-N".
func FigureStem(kind, axis string) string { return kind + "-" + results.FileSlug(axis) }

// figureKind is the kind of sweep figure that plots a metric ("" for
// metrics only the tables show).
func figureKind(metric string) string {
	switch {
	case metric == results.MetricGoodput:
		return "goodput"
	case metric == results.MetricJFI:
		return "jfi"
	case metric == results.MetricUtilization:
		return "utilization"
	}
	if _, ok := results.GoodputFlow(metric); ok {
		return "flows"
	}
	return ""
}

// HTML renders the report as one self-contained page: a summary table of
// the verdicts, what it was made with, and for every finding the paper's
// text, the rule, the verdict with each check's numbers, and emu's figures
// (figs, inlined) and tables (from r) of the presets the finding reads.
func HTML(rep *Report, r Results, figs []Figure) ([]byte, error) {
	d := htmlData{Rep: rep, Made: "not recorded", Wall: "not recorded"}
	if !rep.Made.IsZero() {
		d.Made = rep.Made.UTC().Format(time.RFC3339)
	}
	if rep.WallTimeS > 0 {
		d.Wall = (time.Duration(rep.WallTimeS * float64(time.Second))).Round(time.Second).String()
	}
	for _, v := range Verdicts() {
		d.Counts = append(d.Counts, htmlCount{Verdict: v, Class: verdictClass(v), N: rep.Counts[v]})
	}
	for _, f := range rep.Findings {
		hf := htmlFinding{Result: f, Class: verdictClass(f.Verdict)}
		for _, c := range f.Checks {
			hf.Checks = append(hf.Checks, htmlCheck{CheckResult: c, Class: verdictClass(c.Verdict)})
		}
		for _, p := range f.Presets {
			hf.Figs = append(hf.Figs, pickFigures(f, p, figs)...)
			if t, ok := table(f, p, r); ok {
				hf.Tables = append(hf.Tables, t)
			}
		}
		d.Findings = append(d.Findings, hf)
	}
	var b bytes.Buffer
	if err := htmlTemplate.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("%s: %w", results.ReportFile, err)
	}
	return b.Bytes(), nil
}

// pickFigures returns a preset's figures of the finding's metrics along
// its axes; all of them for a preset no check reads (a reference).
func pickFigures(f Result, preset string, figs []Figure) []htmlFigure {
	var stems []string
	for _, a := range f.Axes[preset] {
		for _, m := range f.Metrics {
			if k := figureKind(m); k != "" && !slices.Contains(stems, FigureStem(k, a)) {
				stems = append(stems, FigureStem(k, a))
			}
		}
	}
	var out []htmlFigure
	for _, fig := range figs {
		if fig.Preset != preset {
			continue
		}
		keep := len(f.Axes[preset]) == 0
		for _, s := range stems {
			keep = keep || fig.Name == s || strings.HasPrefix(fig.Name, s+"-")
		}
		if keep {
			out = append(out, htmlFigure{Preset: preset, Name: fig.Name, Title: fig.Title,
				Src: results.SVGDataURL(fig.SVG)})
		}
	}
	return out
}

// table is a preset's points with the finding's metrics (every metric for
// a preset no check reads).
func table(f Result, preset string, r Results) (htmlTable, bool) {
	sw := r[preset]
	if sw == nil {
		return htmlTable{}, false
	}
	t := htmlTable{Preset: preset}
	present := map[string]bool{}
	for _, p := range sw.Points {
		for m := range p.Metrics {
			present[m] = true
		}
	}
	if len(f.Axes[preset]) > 0 {
		for _, m := range f.Metrics {
			if present[m] {
				t.Metrics = append(t.Metrics, m)
			}
		}
	} else {
		t.Metrics = slices.SortedFunc(maps.Keys(present), metricOrder)
	}
	for _, a := range sw.Axes {
		t.Axes = append(t.Axes, a.Key)
	}
	for _, p := range sw.Points {
		var row htmlRow
		for _, a := range sw.Axes {
			row.Labels = append(row.Labels, p.Labels[a.Key])
		}
		for _, m := range t.Metrics {
			st, ok := p.Metrics[m]
			cell := "–"
			if ok && st.N > 0 && !math.IsNaN(st.Mean) {
				cell = fmtStat(st)
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, true
}

// metricOrder sorts total goodput first, then flows, JFI, utilization and
// the rest by name.
func metricOrder(a, b string) int {
	rank := func(m string) int {
		switch figureKind(m) {
		case "goodput":
			return 0
		case "flows":
			return 1
		case "jfi":
			return 2
		case "utilization":
			return 3
		}
		return 4
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

func verdictClass(v Verdict) string {
	switch v {
	case Holds:
		return "v-holds"
	case ShapeOnly:
		return "v-shape"
	case Fails:
		return "v-fails"
	case Inconclusive:
		return "v-open"
	}
	return "v-none"
}

type htmlData struct {
	Rep        *Report
	Made, Wall string
	Counts     []htmlCount
	Findings   []htmlFinding
}

type htmlCount struct {
	Verdict Verdict
	Class   string
	N       int
}

type htmlFinding struct {
	Result
	Class  string
	Checks []htmlCheck
	Figs   []htmlFigure
	Tables []htmlTable
}

type htmlCheck struct {
	CheckResult
	Class string
}

type htmlFigure struct {
	Preset, Name, Title string
	Src                 template.URL
}

type htmlTable struct {
	Preset  string
	Axes    []string
	Metrics []string
	Rows    []htmlRow
}

type htmlRow struct {
	Labels, Cells []string
}

// The page is XHTML-compatible (every element closed) so that a test can
// check it with an XML parser.
var htmlTemplate = template.Must(template.New("reproduce").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<title>emu reproduces "QUIC Throughput and Fairness over Dual Connectivity"</title>
<style>
` + results.PageStyle + `h2 { margin-top: 2.5em; border-top: 1px solid #ddd; padding-top: 1em; } h3 { font-size: 1em; }
.side { display: flex; flex-wrap: wrap; gap: 1.5em; }
.side > div { flex: 1 1 30em; }
.paper { background: #f7f7f2; border-left: 4px solid #aa9; padding: 0.5em 1em; }
figure { margin: 1em 0; }
.verdict { font-weight: bold; padding: 0.1em 0.4em; border-radius: 0.2em; white-space: nowrap; }
.v-holds { background: #d8f0d8; } .v-shape { background: #fbe8c8; } .v-fails { background: #f6d0d0; }
.v-open { background: #e4e4f4; } .v-none { background: #eee; color: #666; }
small { color: #555; }
</style>
</head>
<body>
<h1>emu reproduces "QUIC Throughput and Fairness over Dual Connectivity"</h1>
<p>Scale <b>{{.Rep.Scale}}</b>, {{.Rep.Repeat}} repeats per point{{if .Rep.Parts}}, parts {{range $i, $p := .Rep.Parts}}{{if $i}}, {{end}}{{$p}}{{end}}{{end}};
wall time {{.Wall}}; emu {{.Rep.EmuVersion}}; made {{.Made}}.</p>
<p>Each finding is the paper's (paraphrased, with its numbers) beside emu's figures and tables. Its verdict comes from the rule written with it:
a difference counts only when it exceeds the half-width of its own 95 % confidence interval; otherwise the check is inconclusive.
Shape checks judge what the paper says without numbers, magnitude checks its numbers within the stated tolerance.</p>
<h2 id="summary">Summary</h2>
<table>
<tr>{{range .Counts}}<th><span class="verdict {{.Class}}">{{.Verdict}}</span></th>{{end}}</tr>
<tr>{{range .Counts}}<td class="num">{{.N}}</td>{{end}}</tr>
</table>
<table>
<tr><th>fig.</th><th>experiment</th><th>verdict</th><th>why</th></tr>
{{range .Findings}}<tr><td><a href="#{{.ID}}">{{.Figures}}</a></td><td>{{.Title}}</td><td><span class="verdict {{.Class}}">{{.Verdict}}</span></td><td><small>{{.Reason}}</small></td></tr>
{{end}}</table>
{{range .Findings}}
<h2 id="{{.ID}}">{{.Figures}}: {{.Title}}</h2>
<p><span class="verdict {{.Class}}">{{.Verdict}}</span> <small>{{.Reason}}</small></p>
<div class="side">
<div><h3>The paper</h3><p class="paper">{{.Paper}}</p>
<h3>The rule</h3><p>{{.Rule}}</p><p><small>Presets: {{range $i, $p := .Presets}}{{if $i}}, {{end}}<code>{{$p}}</code>{{end}}. Metrics: {{range $i, $m := .Metrics}}{{if $i}}, {{end}}<code>{{$m}}</code>{{end}}.</small></p></div>
<div><h3>emu</h3>{{range .Figs}}<figure><img src="{{.Src}}" alt="{{.Title}}"/><figcaption>{{.Preset}}: {{.Title}} ({{.Name}})</figcaption></figure>
{{else}}<p><small>No figures of these presets in this reproduction.</small></p>{{end}}</div>
</div>
{{if .Checks}}<div class="wide"><table>
<tr><th>part</th><th>check</th><th>verdict</th><th>numbers (mean ± 95 % CI, n)</th></tr>
{{range .Checks}}<tr><td>{{.Part}}</td><td>{{.Rule}}</td><td><span class="verdict {{.Class}}">{{.Verdict}}</span></td><td><small>{{.Detail}}</small></td></tr>
{{end}}</table></div>{{end}}
{{range .Tables}}<h3>{{.Preset}}</h3>
<div class="wide"><table>
<tr>{{range .Axes}}<th>{{.}}</th>{{end}}{{range .Metrics}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .Labels}}<td>{{.}}</td>{{end}}{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{end}}{{if not .Tables}}<p><small>No results of {{range $i, $p := .Presets}}{{if $i}}, {{end}}{{$p}}{{end}} in this reproduction.</small></p>{{end}}
{{end}}
</body>
</html>
`))
