package flowcontrol

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study/studytest"
)

// fakeTable is a sweep table of plan p with three runs a point: goodput
// 100 Mbit/s off and 120 with flow control, the p95 RTT and hold lower
// with flow control, host drops and credit-limited time only there. The
// point named skip has no runs.
func fakeTable(p *results.Plan, skip string) *results.SweepTable {
	t := &results.SweepTable{Plan: p, Metrics: []string{results.MetricGoodput, results.MetricRelativeGoodput,
		results.FlowMetric("dc", "rtt_p95_ms"), metricHoldP95, metricExpiries, metricHostDropped, metricWaitP95,
		metricLimited("link1"), metricLimited("link2"), metricQueueDrops}}
	st := func(m float64) results.Stat { return results.Stat{Mean: m, SD: m / 10, CI95: m / 20, N: 3} }
	for _, pt := range p.Points {
		r := results.SweepRow{ID: pt.ID, Labels: pt.Labels, OK: 3, Stats: map[string]results.Stat{}}
		if pt.ID == skip {
			r.OK, r.Missing = 0, 3
			t.Rows = append(t.Rows, r)
			continue
		}
		if pt.Labels[Axis] == Off {
			r.Stats[results.MetricGoodput], r.Stats[results.MetricRelativeGoodput] = st(100), st(1)
			r.Stats[results.FlowMetric("dc", "rtt_p95_ms")], r.Stats[metricHoldP95] = st(180), st(60)
			r.Stats[metricExpiries], r.Stats[metricQueueDrops] = st(0.5), st(40)
		} else {
			r.Stats[results.MetricGoodput], r.Stats[results.MetricRelativeGoodput] = st(120), st(1.2)
			r.Stats[results.FlowMetric("dc", "rtt_p95_ms")], r.Stats[metricHoldP95] = st(60), st(8)
			r.Stats[metricExpiries], r.Stats[metricQueueDrops] = st(0), st(0)
			r.Stats[metricHostDropped], r.Stats[metricWaitP95] = st(12), st(4)
			r.Stats[metricLimited("link1")], r.Stats[metricLimited("link2")] = st(1.5), st(0.25)
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// squash is s with every run of white space one space, for comparing
// tabwriter's lines.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestTable: one line per point with runs, its setting read from the
// label, each metric's mean (± CI), "-" where a run has none; nothing for
// a sweep without the fc axis.
func TestTable(t *testing.T) {
	p := studytest.Named(t, Study(), "fc-lte")
	skip := ""
	for _, pt := range p.Points {
		if pt.Labels[Axis] == dddsLabel("100ms", "") {
			skip = pt.ID
		}
	}
	var b bytes.Buffer
	Study().Tables(&b, fakeTable(p, skip))
	out := squash(b.String())
	for _, want := range []string{
		"DC flow control (fc axis): each setting against off (dc.fc=off, dc.scheduler=adaptive)",
		"off adaptive - - 100.0 ± 5.0 1.00 ± 0.05 180.0 ± 9.0 60.0 ± 3.0 0.50 ± 0.03 - - - / - 40 ± 2 3",
		"ddds credit 25ms 10ms 120.0 ± 6.0 1.20 ± 0.06 60.0 ± 3.0 8.0 ± 0.4 0.00 ± 0.00 12 ± 1 4.0 ± 0.2 1.50 / 0.25 0 ± 0 3",
		"ddds credit 50ms 10ms",
	} {
		if !strings.Contains(out, squash(want)) {
			t.Errorf("no line %q in:\n%s", want, b.String())
		}
	}
	if strings.Contains(out, "100ms") {
		t.Errorf("the point without runs is in the table:\n%s", b.String())
	}
	b.Reset()
	Study().Tables(&b, &results.SweepTable{Plan: &results.Plan{Vary: []results.Axis{{Key: "dc.batch", Values: []string{"100"}}}}})
	if b.Len() != 0 {
		t.Errorf("a sweep without the fc axis: %q", b.String())
	}
}

// TestRTTMetric: the DC flow's RTT, else the first flow's that has one.
func TestRTTMetric(t *testing.T) {
	for _, tc := range []struct {
		metrics []string
		want    string
	}{
		{nil, "flow.dc.rtt_p95_ms"},
		{[]string{"flow.b.rtt_p95_ms", "flow.dc.rtt_p95_ms"}, "flow.dc.rtt_p95_ms"},
		{[]string{"flow.down.rtt_p95_ms", "flow.bulk.rtt_p95_ms", "flow.bulk.owd_p95_ms"}, "flow.bulk.rtt_p95_ms"},
	} {
		if got := rttMetric(&results.SweepTable{Metrics: tc.metrics}); got != tc.want {
			t.Errorf("rttMetric(%v) = %s, want %s", tc.metrics, got, tc.want)
		}
	}
}

// TestHeatmap: a sweep with flow-controlled runs gets the heat map over
// buffer × interval; one without runs of them, or without the fc axis,
// gets none.
func TestHeatmap(t *testing.T) {
	p := studytest.Named(t, Study(), "fc-mmwave")
	figs, err := Study().Figures(fakeTable(p, ""))
	if err != nil || len(figs) != 1 {
		t.Fatalf("Figures: %d figures, %v", len(figs), err)
	}
	f := figs[0]
	if f.Name != "fc-relative-goodput-buffer-interval" || len(f.SVG) == 0 || len(f.PNG) == 0 {
		t.Errorf("figure %s: %d B SVG, %d B PNG", f.Name, len(f.SVG), len(f.PNG))
	}
	for _, v := range append(append([]string{}, buffers...), intervals...) {
		if !bytes.Contains(f.SVG, []byte(v)) {
			t.Errorf("the heat map does not name %s", v)
		}
	}
	only := fakeTable(p, "")
	for i := range only.Rows {
		if only.Rows[i].Labels[Axis] != Off {
			only.Rows[i].Stats = map[string]results.Stat{}
		}
	}
	if figs, err := Study().Figures(only); err != nil || len(figs) != 0 {
		t.Errorf("no flow-controlled runs: %d figures, %v", len(figs), err)
	}
	if figs, err := Study().Figures(&results.SweepTable{Plan: &results.Plan{}}); err != nil || len(figs) != 0 {
		t.Errorf("no fc axis: %d figures, %v", len(figs), err)
	}
}
