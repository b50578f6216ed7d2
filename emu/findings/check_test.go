package findings

import (
	"math"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

// st is a synthetic aggregate of 5 runs.
func st(mean, ci float64) Stat { return Stat{Mean: mean, SD: ci, CI95: ci, N: 5} }

// line1 builds results of one preset "p" with one axis "x", each value's
// metrics given in order.
type col struct {
	metric string
	stats  []Stat
}

func line1(values []string, cols ...col) Results {
	sw := &Sweep{Preset: "p", Axes: []Axis{{Key: "x", Values: values}}}
	for i, v := range values {
		pt := Point{Labels: map[string]string{"x": v}, Metrics: map[string]Stat{}}
		for _, c := range cols {
			pt.Metrics[c.metric] = c.stats[i]
		}
		sw.Points = append(sw.Points, pt)
	}
	return Results{"p": sw}
}

var xs = []string{"a", "b", "c", "d"}

func px(v string) At                  { return PointAt("p", "x", v) }
func sx(metric string) Series         { return SeriesAlong(metric, LineAlong("p", "x")) }
func tx(metric string, v string) Term { return TermAt(metric, px(v)) }
func pair2(a, b Stat) []Stat          { return []Stat{a, b, st(0, 0), st(0, 0)} }
func four(a, b, c, d float64, ci float64) []Stat {
	return []Stat{st(a, ci), st(b, ci), st(c, ci), st(d, ci)}
}

type kindCase struct {
	name  string
	check Check
	r     Results
	want  Verdict
}

func runCases(t *testing.T, cases []kindCase) {
	t.Helper()
	for _, c := range cases {
		got := c.check.eval(c.r)
		if got.Verdict != c.want {
			t.Errorf("%s: %s: got %s (%s), want %s", c.name, c.check.Rule(), got.Verdict, got.Detail, c.want)
		}
		if got.Rule == "" || got.Kind == "" || got.Numbers == nil {
			t.Errorf("%s: result without rule, kind or numbers: %+v", c.name, got)
		}
	}
}

// Every rule kind: one case that holds, one that fails, one whose deciding
// difference lies within the confidence interval.
func TestRuleKinds(t *testing.T) {
	m := "m"
	g := func(a, b Stat) Results { return line1(xs, col{m, pair2(a, b)}) }
	gt := Greater(tx(m, "a"), tx(m, "b"))
	below := Below(tx(m, "a"), 0.5)
	above := Above(tx(m, "a"), 0.5)
	near := Near(tx(m, "a"), 0.70, Abs(0.05))
	within := Within(tx(m, "a"), tx(m, "b"), Rel(0.10))
	runCases(t, []kindCase{
		{"greater holds", gt, g(st(10, 0.5), st(8, 0.5)), Holds},
		{"greater fails", gt, g(st(8, 0.5), st(10, 0.5)), Fails},
		{"greater within CI", gt, g(st(10, 1), st(9, 1)), Inconclusive}, // 1 < √2
		{"below holds", below, g(st(0.40, 0.02), st(0, 0)), Holds},
		{"below fails", below, g(st(0.60, 0.02), st(0, 0)), Fails},
		{"below within CI", below, g(st(0.48, 0.05), st(0, 0)), Inconclusive},
		{"above holds", above, g(st(0.60, 0.02), st(0, 0)), Holds},
		{"above fails", above, g(st(0.40, 0.02), st(0, 0)), Fails},
		{"above within CI", above, g(st(0.52, 0.05), st(0, 0)), Inconclusive},
		{"near holds", near, g(st(0.72, 0.01), st(0, 0)), Holds},
		{"near holds, wide CI", near, g(st(0.74, 0.2), st(0, 0)), Holds},
		{"near fails", near, g(st(0.52, 0.01), st(0, 0)), Fails},
		{"near within CI", near, g(st(0.64, 0.03), st(0, 0)), Inconclusive}, // 0.01 outside, CI 0.03
		{"within holds", within, g(st(10, 0.5), st(9.5, 0.5)), Holds},
		{"within fails", within, g(st(10, 0.1), st(8, 0.1)), Fails},
		{"within within CI", within, g(st(10, 1), st(8.8, 1)), Inconclusive}, // 0.2 beyond the 1.0 allowed, CI 1.4
	})
}

func TestLineRuleKinds(t *testing.T) {
	m := "m"
	l := func(a, b, c, d, ci float64) Results { return line1(xs, col{m, four(a, b, c, d, ci)}) }
	arg := ArgmaxIn(sx(m), "b", "c")
	dec := Decreasing(sx(m))
	inc := Increasing(sx(m))
	flat := Flat(sx(m), Rel(0.10))
	belowAll := BelowAll(sx(m), 0.5)
	inRange := InRange(sx(m), 0.39, 0.48, Abs(0.05))
	atMost := AtMost(sx(m), 20, Rel(0.10))
	runCases(t, []kindCase{
		{"argmax holds", arg, l(10, 14, 12, 9, 0.5), Holds},
		{"argmax fails", arg, l(15, 14, 12, 9, 0.5), Fails},
		{"argmax within CI", arg, l(13.5, 14, 12, 9, 0.5), Inconclusive},
		{"decreasing holds", dec, l(10, 9, 9.2, 7, 0.5), Holds}, // 9 → 9.2 rises within its CI
		{"decreasing fails overall", dec, l(7, 8, 9, 10, 0.5), Fails},
		{"decreasing fails at a step", dec, l(10, 6, 9, 5, 0.5), Fails},
		{"decreasing within CI", dec, l(10, 9.8, 9.9, 9.6, 0.5), Inconclusive},
		{"increasing holds", inc, l(7, 8, 9, 10, 0.5), Holds},
		{"increasing fails", inc, l(10, 9, 8, 7, 0.5), Fails},
		{"increasing within CI", inc, l(10, 10.1, 10.2, 10.3, 0.5), Inconclusive},
		{"flat holds", flat, l(20, 19.5, 19, 20.5, 0.5), Holds},
		{"flat fails", flat, l(20, 15, 19, 20, 0.2), Fails},
		{"flat within CI", flat, l(20, 17.5, 19, 20, 1), Inconclusive}, // 2.5 vs 2 allowed, CI 1.4
		{"below all holds", belowAll, l(0.40, 0.42, 0.45, 0.39, 0.02), Holds},
		{"below all fails at one point", belowAll, l(0.40, 0.42, 0.60, 0.39, 0.02), Fails},
		{"below all within CI", belowAll, l(0.40, 0.42, 0.49, 0.39, 0.05), Inconclusive},
		{"in range holds", inRange, l(0.40, 0.45, 0.50, 0.36, 0.01), Holds},
		{"in range fails", inRange, l(0.40, 0.45, 0.84, 0.36, 0.01), Fails},
		{"in range within CI", inRange, l(0.40, 0.45, 0.55, 0.36, 0.05), Inconclusive},
		{"at most holds", atMost, l(19, 21.5, 15, 10, 1), Holds},
		{"at most fails", atMost, l(19, 25, 15, 10, 1), Fails},
		{"at most within CI", atMost, l(19, 22.5, 15, 10, 1), Inconclusive},
	})
}

func TestSeriesPairKinds(t *testing.T) {
	two := func(a, b []Stat) Results { return line1(xs, col{"a", a}, col{"b", b}) }
	ga := GreaterAlong(sx("a"), sx("b"))
	wa := WithinAlong(sx("a"), sx("b"), Abs(1), 0.5)
	sd := Steadier(sx("a"), sx("b"), "a", "d")
	runCases(t, []kindCase{
		{"greater along holds", ga, two(four(10, 10, 10, 10, 0.5), four(5, 6, 7, 8, 0.5)), Holds},
		{"greater along fails at one", ga, two(four(10, 10, 10, 10, 0.5), four(5, 6, 7, 12, 0.5)), Fails},
		{"greater along within CI at one", ga, two(four(10, 10, 10, 10, 0.5), four(5, 6, 7, 9.8, 0.5)), Inconclusive},
		{"within along holds at half", wa, two(four(10, 10, 10, 10, 0.1), four(10.5, 9.5, 5, 5, 0.1)), Holds},
		{"within along fails", wa, two(four(10, 10, 10, 10, 0.1), four(10.5, 5, 5, 5, 0.1)), Fails},
		{"within along within CI", wa, two(four(10, 10, 10, 10, 1), four(10.5, 8.5, 5, 5, 0.1)), Inconclusive},
		// a keeps 90 % of its value, b 50 %.
		{"steadier holds", sd, two(four(20, 19, 18, 18, 0.2), four(40, 30, 25, 20, 0.4)), Holds},
		{"steadier fails", sd, two(four(40, 30, 25, 20, 0.4), four(20, 19, 18, 18, 0.2)), Fails},
		{"steadier within CI", sd, two(four(20, 19, 18, 12, 3), four(40, 30, 25, 22, 3)), Inconclusive},
	})
}

func TestDupRelation(t *testing.T) {
	losses := []string{"0%", "2%", "5%"}
	r := func(x []Stat, b []Stat) Results {
		res := line1(losses, col{results.MetricGoodput, x}, col{results.MetricLinksDown, b})
		res["p"].Axes[0].Key = "link.loss"
		for _, p := range res["p"].Points {
			p.Labels["link.loss"] = p.Labels["x"]
		}
		return res
	}
	rel := DupRelation(LineAlong("p", "link.loss"), Rel(0.10))
	// B counted before the loss: X = B(1−p²)/2; headers cost ≈ 5 %.
	b := []Stat{st(40, 0.2), st(40, 0.2), st(40, 0.2)}
	pred := func(p float64) float64 { return 40 * (1 - p*p) / 2 }
	runCases(t, []kindCase{
		{"relation holds", rel, r([]Stat{st(0.95*pred(0), 0.2), st(0.95*pred(0.02), 0.2), st(0.95*pred(0.05), 0.2)}, b), Holds},
		{"relation fails", rel, r([]Stat{st(0.95*pred(0), 0.2), st(0.7*pred(0.02), 0.2), st(0.95*pred(0.05), 0.2)}, b), Fails},
		{"relation within CI", rel, r([]Stat{st(0.95*pred(0), 0.2), st(0.88*pred(0.02), 1), st(0.95*pred(0.05), 0.2)}, b), Inconclusive},
	})
	bad := line1([]string{"none"}, col{results.MetricGoodput, []Stat{st(1, 0)}}, col{results.MetricLinksDown, []Stat{st(1, 0)}})
	if got := DupRelation(LineAlong("p", "x"), Rel(0.1)).eval(bad); got.Verdict != NotJudged || !strings.Contains(got.Detail, "rule error") {
		t.Errorf("a non-percentage loss label: %s %s", got.Verdict, got.Detail)
	}
}

// Missing data is not judged; a CI that cannot be computed (one run) keeps
// a difference undecided.
func TestMissingAndUnknownCI(t *testing.T) {
	one := func(mean float64) Stat { return Stat{Mean: mean, SD: math.NaN(), CI95: math.NaN(), N: 1} }
	r := line1(xs, col{"m", []Stat{one(10), one(5), st(1, 0), {Mean: math.NaN(), N: 0}}})
	cases := []kindCase{
		{"unknown CI", Greater(tx("m", "a"), tx("m", "b")), r, Inconclusive},
		{"no such metric", Greater(tx("other", "a"), tx("m", "b")), r, NotJudged},
		{"metric without runs", Above(tx("m", "d"), 0), r, NotJudged},
		{"no such preset", Above(TermAt("m", PointAt("q", "x", "a")), 0), r, NotJudged},
		{"a line with a gap", Decreasing(sx("m")), r, NotJudged},
		{"near with unknown CI, inside", Near(tx("m", "a"), 10.2, Abs(0.5)), r, Holds},
		{"near with unknown CI, outside", Near(tx("m", "a"), 12, Abs(0.5)), r, Inconclusive},
	}
	for _, c := range cases {
		if got := c.check.eval(c.r); got.Verdict != c.want {
			t.Errorf("%s: got %s (%s), want %s", c.name, got.Verdict, got.Detail, c.want)
		}
	}
	// A rule that names no single point says so.
	if got := Above(tx("m", "zz"), 0).eval(r); got.Verdict != NotJudged || !strings.Contains(got.Detail, "rule error") {
		t.Errorf("unknown axis value: %s %s", got.Verdict, got.Detail)
	}
}

func TestCombine(t *testing.T) {
	s := func(v Verdict) CheckResult { return CheckResult{Part: Shape, Verdict: v, Rule: "s " + string(v)} }
	m := func(v Verdict) CheckResult { return CheckResult{Part: Magnitude, Verdict: v, Rule: "m " + string(v)} }
	cases := []struct {
		in   []CheckResult
		want Verdict
	}{
		{nil, NotJudged},
		{[]CheckResult{s(Holds), s(Holds)}, Holds},
		{[]CheckResult{s(Holds), m(Holds)}, Holds},
		{[]CheckResult{s(Holds), m(Fails)}, ShapeOnly},
		{[]CheckResult{s(Holds), m(Inconclusive)}, Inconclusive},
		{[]CheckResult{s(Inconclusive), m(Fails)}, Inconclusive},
		{[]CheckResult{s(Fails), s(Inconclusive), m(Holds)}, Fails},
		{[]CheckResult{s(Fails), s(NotJudged)}, Fails},
		{[]CheckResult{s(Holds), s(NotJudged), m(Fails)}, NotJudged},
		{[]CheckResult{s(Holds), m(NotJudged)}, NotJudged},
	}
	for i, c := range cases {
		if got, why := combine(c.in); got != c.want || why == "" {
			t.Errorf("case %d: got %s (%q), want %s", i, got, why, c.want)
		}
	}
}
