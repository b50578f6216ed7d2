package paper

import (
	"slices"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"

	"github.com/dc-emu/emu/emu/findings"
)

func TestFindingsTable(t *testing.T) {
	fs := Findings()
	if len(fs) < 20 {
		t.Fatalf("%d findings: the paper's table has 26 rows", len(fs))
	}
	ids := map[string]bool{}
	for _, f := range fs {
		if ids[f.ID] {
			t.Errorf("finding %s twice", f.ID)
		}
		ids[f.ID] = true
		if f.Figures == "" || f.Title == "" || f.Paper == "" || len(f.Presets()) == 0 {
			t.Errorf("finding %s lacks its figures, title, paper text or presets", f.ID)
		}
		if len(f.Shape)+len(f.Magnitude) == 0 && (len(f.Extra) == 0 || f.Unjudged == "") {
			t.Errorf("finding %s: no checks, so it must be a reference that says why", f.ID)
		}
		rule := f.Rule()
		for _, c := range slices.Concat(f.Shape, f.Magnitude) {
			if !strings.Contains(rule, c.Rule()) {
				t.Errorf("finding %s: rule text lacks %q", f.ID, c.Rule())
			}
		}
		if len(f.Magnitude) == 0 && len(f.Shape) > 0 && !strings.Contains(rule, "only the shape is judged") {
			t.Errorf("finding %s: without numbers the rule must say it judges the shape only", f.ID)
		}
	}
	// The paper's numbers are in the rules that judge them.
	for id, nums := range map[string][]string{
		"fig8bc": {"0.7 ", "0.59"}, "fig9b10b": {"0.9903", "0.8758"}, "fig9a10a": {"0.9996", "0.9986"},
		"fig11b": {"0.39–0.48", "< 0.5"}, "fig12bc": {"0.02"},
	} {
		i := slices.IndexFunc(fs, func(f findings.Finding) bool { return f.ID == id })
		if i < 0 {
			t.Errorf("no finding %s", id)
			continue
		}
		for _, n := range nums {
			if !strings.Contains(fs[i].Rule(), n) {
				t.Errorf("finding %s: rule lacks %q: %s", id, n, fs[i].Rule())
			}
		}
	}
}

// oneAxis is a sweep along one axis whose metrics come from f(value index).
func oneAxis(preset, axis string, values []string, f func(i int) map[string]findings.Stat) *findings.Sweep {
	sw := &findings.Sweep{Preset: preset, Axes: []findings.Axis{{Key: axis, Values: values}}}
	for i, v := range values {
		sw.Points = append(sw.Points, findings.Point{Labels: map[string]string{axis: v}, Metrics: f(i)})
	}
	return sw
}

var ratios = []string{"1:1", "2:1", "3:1", "4:1", "5:1"}

// fairnessByRatio is a bandwidth-ratio fairness sweep whose JFI falls
// linearly from 1 to jfi5 at 5:1, the fast link's client on top.
func fairnessByRatio(preset, axis string, jfi5, ci float64) *findings.Sweep {
	return oneAxis(preset, axis, ratios, func(i int) map[string]findings.Stat {
		j := 1 - (1-jfi5)*float64(i)/4
		return map[string]findings.Stat{results.MetricJFI: st(j, ci), dc: st(5, 0.3), link1: st(20+float64(i), 0.3), link2: st(5-float64(i)/2, 0.3)}
	})
}

func find(t *testing.T, id string) findings.Finding {
	t.Helper()
	for _, f := range Findings() {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no finding %s", id)
	return findings.Finding{}
}

// A finding's verdict from synthetic sweeps: the paper's numbers hold; the
// right order with other numbers holds in shape only; the wrong order does
// not hold; the order within the CI is inconclusive.
func TestFindingVerdicts(t *testing.T) {
	f := find(t, "fig8bc")
	cases := []struct {
		name           string
		matched, even  float64
		ci             float64
		want           findings.Verdict
		reasonContains string
	}{
		{"paper's numbers", 0.70, 0.59, 0.005, findings.Holds, "every check holds"},
		{"order only", 0.52, 0.48, 0.005, findings.ShapeOnly, "≈ the paper's 0.7"},
		{"wrong order", 0.55, 0.62, 0.005, findings.Fails, "bw-ratio-matched-fairness"},
		{"within the CI", 0.69, 0.62, 0.08, findings.Inconclusive, "within the CI"},
	}
	for _, c := range cases {
		r := findings.Results{
			"bw-ratio-matched-fairness": fairnessByRatio("bw-ratio-matched-fairness", "link.bw_ratio+dc.split", c.matched, c.ci),
			"bw-ratio-fairness":         fairnessByRatio("bw-ratio-fairness", "link.bw_ratio", c.even, c.ci),
		}
		if err := findings.Validate([]findings.Finding{f}, r); err != nil {
			t.Fatal(err)
		}
		res := findings.Evaluate([]findings.Finding{f}, r)[0]
		if res.Verdict != c.want || !strings.Contains(res.Reason, c.reasonContains) {
			t.Errorf("%s: %s (%s), want %s with %q", c.name, res.Verdict, res.Reason, c.want, c.reasonContains)
		}
	}
	// Without the sweeps nothing is judged.
	if res := findings.Evaluate([]findings.Finding{f}, findings.Results{}); res[0].Verdict != findings.NotJudged {
		t.Errorf("no results: %s", res[0].Verdict)
	}
	if res := findings.Evaluate([]findings.Finding{find(t, "appA")}, findings.Results{}); res[0].Verdict != findings.NotJudged || len(res[0].Checks) != 0 {
		t.Errorf("a reference: %+v", res[0])
	}
}

func TestValidate(t *testing.T) {
	f := find(t, "fig8bc")
	good := findings.Results{
		"bw-ratio-matched-fairness": fairnessByRatio("bw-ratio-matched-fairness", "link.bw_ratio+dc.split", 0.7, 0.01),
		"bw-ratio-fairness":         fairnessByRatio("bw-ratio-fairness", "link.bw_ratio", 0.6, 0.01),
	}
	if err := findings.Validate([]findings.Finding{f}, good); err != nil {
		t.Errorf("valid: %v", err)
	}
	// The other preset lacks 5:1: the rule can never be judged.
	short := oneAxis("bw-ratio-fairness", "link.bw_ratio", ratios[:4], func(int) map[string]findings.Stat { return nil })
	err := findings.Validate([]findings.Finding{f}, findings.Results{"bw-ratio-matched-fairness": good["bw-ratio-matched-fairness"], "bw-ratio-fairness": short})
	if err == nil || !strings.Contains(err.Error(), "no value 5:1") {
		t.Errorf("missing axis value: %v", err)
	}
	// Two points with the same labels: ambiguous.
	dup := fairnessByRatio("bw-ratio-fairness", "link.bw_ratio", 0.6, 0.01)
	dup.Points = append(dup.Points, dup.Points[4])
	err = findings.Validate([]findings.Finding{f}, findings.Results{"bw-ratio-matched-fairness": good["bw-ratio-matched-fairness"], "bw-ratio-fairness": dup})
	if err == nil || !strings.Contains(err.Error(), "several points") {
		t.Errorf("ambiguous point: %v", err)
	}
	if err := findings.Validate([]findings.Finding{f}, findings.Results{}); err == nil || !strings.Contains(err.Error(), "no preset bw-ratio-fairness") {
		t.Errorf("missing preset: %v", err)
	}
}

func st(mean, ci float64) findings.Stat { return findings.Stat{Mean: mean, SD: ci, CI95: ci, N: 5} }
