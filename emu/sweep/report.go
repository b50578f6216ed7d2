package sweep

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"

	"github.com/dc-emu/emu/emu/results"
)

// WriteReport renders report.html: self-contained (figures inlined as SVG
// data, styles inline, no external resources), with the run counts, the
// figures, the table of sweep.csv, the failed runs, the plan and the base
// configuration.
func WriteReport(t *results.SweepTable, figs []Figure, studies Catalog) ([]byte, error) {
	ok, failed, missing := t.Counts()
	d := reportData{
		Title:        reportTitle(t.Plan, studies),
		Plan:         t.Plan,
		OK:           ok,
		Failed:       failed,
		Missing:      missing,
		Degraded:     t.DegradedRuns(),
		KeptDegraded: t.KeptDegraded,
		Settings:     t.Plan.Settings,
	}
	if t.Plan.Grid {
		d.Method = "cross product of the axes (grid)"
	} else {
		d.Method = "one axis at a time, the others at the base configuration"
	}
	for _, f := range figs {
		d.Figures = append(d.Figures, reportFigure{
			Title: f.Title, Caption: f.Caption, File: f.Name,
			Src: results.SVGDataURL(f.SVG),
		})
	}
	for _, a := range t.Plan.Vary {
		d.Axes = append(d.Axes, a.Key)
	}
	d.Metrics = t.Metrics
	for _, r := range t.Rows {
		row := reportRow{ID: r.Point.ID, OK: r.OK, Failed: r.Failed, Missing: r.Missing, Degraded: r.Degraded}
		for _, a := range t.Plan.Vary {
			row.Labels = append(row.Labels, t.Plan.Label(r.Point, a))
		}
		for _, m := range t.Metrics {
			st := r.Stats[m]
			c := reportCell{}
			if st.N > 0 {
				c.Mean = results.FormatNumber(st.Mean)
				c.CI = results.FormatNumber(st.CI95)
				c.SD = results.FormatNumber(st.SD)
			}
			c.N = st.N
			row.Cells = append(row.Cells, c)
		}
		d.Rows = append(d.Rows, row)
	}
	for _, r := range t.Runs {
		switch r.Status {
		case results.StatusOK, results.StatusMissing:
		case results.StatusDegraded:
			d.DegradedRuns = append(d.DegradedRuns, r)
		default:
			d.FailedRuns = append(d.FailedRuns, r)
		}
	}
	for _, pt := range t.Plan.Points {
		d.Points = append(d.Points, reportPoint{
			ID: pt.ID, Desc: t.Plan.Describe(&pt),
			Settings: strings.Join(pt.Settings, " "),
			Params:   results.JoinSorted(pt.Params),
		})
	}
	d.Runs = t.Runs
	d.Base = results.SortedPairs(t.Plan.Base)
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("%s: %w", results.ReportFile, err)
	}
	return b.Bytes(), nil
}

func reportTitle(p *results.Plan, studies Catalog) string {
	switch {
	case p.Preset != "":
		if pr, ok := studies.Preset(p.Preset); ok {
			return fmt.Sprintf("Sweep %s: %s (%s)", p.Preset, pr.Title, pr.Figure)
		}
		return "Sweep " + p.Preset
	case len(p.Vary) > 0:
		return "Sweep of " + describeAxes(p.Vary)
	}
	return "Repeated runs of the base configuration"
}

type reportData struct {
	Title               string
	Plan                *results.Plan
	Method              string
	OK, Failed, Missing int
	Degraded            int
	KeptDegraded        bool
	Settings            []string
	Figures             []reportFigure
	Axes, Metrics       []string
	Rows                []reportRow
	FailedRuns          []results.RunResult
	DegradedRuns        []results.RunResult
	Points              []reportPoint
	Runs                []results.RunResult
	Base                [][2]string
}

type reportFigure struct {
	Title, Caption, File string
	Src                  template.URL
}

type reportRow struct {
	ID                            string
	Labels                        []string
	OK, Failed, Missing, Degraded int
	Cells                         []reportCell
}

type reportCell struct {
	Mean, CI, SD string
	N            int
}

type reportPoint struct {
	ID, Desc, Settings, Params string
}

var reportTemplate = template.Must(template.New("report").Parse(results.PageHead + `<p>Scenario <b>{{.Plan.Scenario}}</b>; {{len .Plan.Points}} points × {{.Plan.Repeat}} repeats = {{len .Plan.Runs}} runs,
varied {{.Method}}; base seed {{.Plan.Seed}}.</p>
<p>Runs: <b>{{.OK}}</b> ok (in the statistics){{if .Degraded}}, <b class="bad">{{.Degraded}} degraded</b> ({{if .KeptDegraded}}kept in the statistics: --keep-degraded{{else}}left out{{end}}){{end}}{{if .Failed}}, <b class="bad">{{.Failed}} failed or interrupted</b> (left out){{end}}{{if .Missing}}, {{.Missing}} not run yet{{end}}.</p>
{{if .FailedRuns}}<h2>Runs that did not end ok</h2>
<table><tr><th>run</th><th>status</th><th>error</th></tr>
{{range .FailedRuns}}<tr><td>{{.ID}}</td><td class="bad">{{.Status}}</td><td>{{.Error}}</td></tr>
{{end}}</table>{{end}}
{{if .DegradedRuns}}<h2>Runs whose emulation was degraded</h2>
<p>These runs ended ok, but the emulation fell behind what it was asked to do (the fidelity checks of their ` + results.SummaryFile + `), in every attempt the sweep allowed (--reruns): their figures may be the host's rather than the network's. {{if .KeptDegraded}}They are in the statistics (--keep-degraded).{{else}}They are left out of the statistics; --keep-degraded keeps them.{{end}} Every degraded attempt that was run again is kept: the first in degraded/&lt;run&gt;, attempt k in degraded/&lt;run&gt;.&lt;k&gt;.</p>
<table><tr><th>run</th><th>failed checks</th></tr>
{{range .DegradedRuns}}<tr><td>{{.ID}}</td><td class="bad">{{.Error}}</td></tr>
{{end}}</table>{{end}}
{{if .Figures}}<h2>Figures</h2>
{{range .Figures}}<figure><img src="{{.Src}}" alt="{{.Title}}"><figcaption>{{.Title}} (figures/{{.File}}.svg, .png). {{.Caption}}</figcaption></figure>
{{end}}{{end}}
<h2>Results per point</h2>
<p>Each cell: mean ± half-width of the 95 % confidence interval (Student's t), then standard deviation and n, over the point's runs that ended ok{{if not .KeptDegraded}} with an emulation that kept up{{end}}. The same numbers are in ` + results.CSVFile + `.</p>
<div class="wide"><table>
<tr><th>point</th>{{range .Axes}}<th>{{.}}</th>{{end}}<th>runs ok / degraded / failed / missing</th>{{range .Metrics}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.ID}}</td>{{range .Labels}}<td>{{.}}</td>{{end}}<td class="num">{{.OK}} / {{if .Degraded}}<span class="bad">{{.Degraded}}</span>{{else}}0{{end}} / {{.Failed}} / {{.Missing}}</td>{{range .Cells}}<td class="num">{{if .N}}{{.Mean}}{{if .CI}} ± {{.CI}}<br><small>sd {{.SD}}, n {{.N}}</small>{{else}}<br><small>n {{.N}}</small>{{end}}{{else}}–{{end}}</td>{{end}}</tr>
{{end}}</table></div>
<h2>Plan</h2>
<p>Axes:</p><ul>
{{range .Plan.Vary}}<li><code>{{.Key}}</code>: {{range $i, $v := .Values}}{{if $i}}, {{end}}{{$v}}{{end}}{{if .Default}} (base: {{.Default}}){{end}}</li>
{{else}}<li>none: every run repeats the base configuration</li>
{{end}}</ul>
<div class="wide"><table>
<tr><th>point</th><th>values</th><th>settings on top of the base</th><th>parameters that differ from the base</th></tr>
{{range .Points}}<tr><td>{{.ID}}</td><td>{{.Desc}}</td><td><code>{{.Settings}}</code></td><td><code>{{.Params}}</code></td></tr>
{{end}}</table></div>
<details><summary>Runs and their seeds</summary>
<table><tr><th>run</th><th>point</th><th>repeat</th><th>seed</th><th>status</th></tr>
{{range .Runs}}<tr><td>{{.ID}}</td><td>{{.Point}}</td><td class="num">{{.Repeat}}</td><td class="num">{{.Seed}}</td><td>{{.Status}}</td></tr>
{{end}}</table></details>
<h2>Base configuration</h2>
<p>Settings given: {{if .Settings}}{{range .Settings}}<code>{{.}}</code> {{end}}{{else}}none (the scenario's defaults){{end}}</p>
<details><summary>Every parameter of the base configuration</summary>
<table><tr><th>key</th><th>value</th></tr>
{{range .Base}}<tr><td><code>{{index . 0}}</code></td><td>{{index . 1}}</td></tr>
{{end}}</table></details>
</body>
</html>
`))
