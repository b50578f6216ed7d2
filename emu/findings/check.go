package findings

import (
	"fmt"
	"math"
	"strings"

	"github.com/dc-emu/emu/internal/stats"
)

// Check is one claim about emu's results. Its Rule is generated from the
// same fields eval uses, so the words and the code cannot drift apart.
// Checks are built with the constructors of this package.
type Check interface {
	// Kind names the rule kind (greater, argmax, decreasing, …).
	Kind() string
	// Rule is the check in words.
	Rule() string
	eval(r Results) CheckResult
	uses() []use
}

// use is a point or a line a check reads, for Validate and for the
// report's figures and tables.
type use struct {
	at     *At
	line   *Line
	metric string
}

func (u use) preset() string {
	if u.at != nil {
		return u.at.Preset
	}
	return u.line.Preset
}

// Tol is a tolerance: absolute, or relative to the larger value compared.
type Tol struct {
	Value    float64
	Relative bool
}

// Abs is an absolute tolerance in the metric's unit.
func Abs(v float64) Tol { return Tol{Value: v} }

// Rel is a tolerance relative to the larger value compared (0.1 = 10 %).
func Rel(v float64) Tol { return Tol{Value: v, Relative: true} }

func (t Tol) of(a, b float64) float64 {
	if t.Relative {
		return t.Value * math.Max(math.Abs(a), math.Abs(b))
	}
	return t.Value
}

func (t Tol) String() string {
	if t.Relative {
		return fmtNum(100*t.Value) + " %"
	}
	return fmtNum(t.Value)
}

// decide compares a difference d with its confidence half-width h: +1 when
// d > h, −1 when d < −h, 0 within (or when h is unknown).
func decide(d, h float64) int {
	switch {
	case math.IsNaN(h) || math.IsNaN(d):
		return 0
	case d > h:
		return 1
	case d < -h:
		return -1
	}
	return 0
}

// hw is the half-width of the CI of a sum or difference of independent
// means: stats.CombinedHalfWidth, NaN if any is unknown.
func hw(cis ...float64) float64 { return stats.CombinedHalfWidth(cis...) }

func signVerdict(s int) Verdict {
	switch s {
	case 1:
		return Holds
	case -1:
		return Fails
	}
	return Inconclusive
}

// notJudged is the result of a check whose data are missing.
func notJudged(c Check, err error) CheckResult {
	v, d := missing(err)
	return CheckResult{Kind: c.Kind(), Rule: c.Rule(), Verdict: v, Detail: d, Numbers: []Number{}}
}

// relation is how two values are compared: a > b, or |a − b| ≤ tol.
type relation struct {
	alike bool
	tol   Tol
}

func (rel relation) judge(a, b Stat) (Verdict, string) {
	if rel.alike {
		return alike(a, b, rel.tol)
	}
	return compare(a, b)
}

func (rel relation) text(a, b string) string {
	if rel.alike {
		return fmt.Sprintf("|%s − %s| ≤ %s", a, b, rel.tol)
	}
	return a + " > " + b
}

// pair: two values compared.
type pair struct {
	a, b Term
	rel  relation
}

// Greater holds when a's mean exceeds b's beyond the CI of the difference,
// fails when it falls short beyond it.
func Greater(a, b Term) Check { return pair{a: a, b: b} }

// Within holds when |a − b| ≤ tol; it fails when |a − b| exceeds tol by
// more than the CI of the difference.
func Within(a, b Term, tol Tol) Check { return pair{a, b, relation{alike: true, tol: tol}} }

func (c pair) Kind() string {
	if c.rel.alike {
		return "within"
	}
	return "greater"
}

func (c pair) Rule() string { return c.rel.text(c.a.String(), c.b.String()) }
func (c pair) uses() []use {
	return []use{{at: &c.a.At, metric: c.a.Metric}, {at: &c.b.At, metric: c.b.Metric}}
}

func (c pair) eval(r Results) CheckResult {
	sa, err := r.stat(c.a)
	if err != nil {
		return notJudged(c, err)
	}
	sb, err := r.stat(c.b)
	if err != nil {
		return notJudged(c, err)
	}
	v, detail := c.rel.judge(sa, sb)
	return CheckResult{Kind: c.Kind(), Rule: c.Rule(), Verdict: v,
		Detail: fmt.Sprintf("%s vs %s: %s", fmtStat(sa), fmtStat(sb), detail), Numbers: []Number{number(c.a, sa), number(c.b, sb)}}
}

// compare decides a > b and says how.
func compare(a, b Stat) (Verdict, string) {
	d, h := a.Mean-b.Mean, hw(a.ci(), b.ci())
	return signVerdict(decide(d, h)), "difference " + fmtNum(d) + " ± " + fmtNum(h)
}

// source is a check's points: one term, or every point of a series.
type source struct {
	term   *Term
	series *Series
}

func (s source) String() string {
	if s.term != nil {
		return s.term.String()
	}
	return "every point of " + s.series.String()
}

func (s source) use() use {
	if s.term != nil {
		return use{at: &s.term.At, metric: s.term.Metric}
	}
	return use{line: &s.series.Line, metric: s.series.Metric}
}

func (s source) terms(r Results) ([]Term, error) {
	if s.term != nil {
		return []Term{*s.term}, nil
	}
	vals, err := r.values(s.series.Line)
	if err != nil {
		return nil, err
	}
	var out []Term
	for _, v := range vals {
		out = append(out, s.series.At(v))
	}
	return out, nil
}

// perPoint evaluates f at each of a source's points and combines them.
func perPoint(c Check, src source, r Results, f func(Stat) (Verdict, string)) CheckResult {
	terms, err := src.terms(r)
	if err != nil {
		return notJudged(c, err)
	}
	var pts tally
	for _, t := range terms {
		st, err := r.stat(t)
		if err != nil {
			pts.missed(err)
			continue
		}
		v, d := f(st)
		label := t.At.String()
		if src.series != nil {
			label = src.series.Line.Axis + "=" + t.At.Labels[src.series.Line.Axis]
		}
		pts.judged(v, fmt.Sprintf("%s: %s %s (%s)", label, fmtStat(st), d, v), number(t, st))
	}
	return pts.result(c)
}

// tally gathers a check's outcome point by point: each point's verdict,
// its numbers and its detail.
type tally struct {
	verdicts []Verdict
	numbers  []Number
	details  []string
}

// judged records a point whose numbers were found.
func (t *tally) judged(v Verdict, detail string, nums ...Number) {
	t.verdicts = append(t.verdicts, v)
	t.numbers = append(t.numbers, nums...)
	t.details = append(t.details, detail)
}

// missed records a point whose numbers could not be found.
func (t *tally) missed(err error) {
	v, d := missing(err)
	t.verdicts, t.details = append(t.verdicts, v), append(t.details, d)
}

// result is c's result over the points: all of their verdicts.
func (t *tally) result(c Check) CheckResult {
	nums := t.numbers
	if nums == nil {
		nums = []Number{} // "numbers": [] in the JSON, never null
	}
	return CheckResult{Kind: c.Kind(), Rule: c.Rule(), Verdict: all(t.verdicts), Numbers: nums, Detail: strings.Join(t.details, "; ")}
}

// threshold: a value below or above a bound the paper implies.
type threshold struct {
	src   source
	below bool
	bound float64
}

// Below holds when t's mean is below v beyond its CI.
func Below(t Term, v float64) Check { return threshold{source{term: &t}, true, v} }

// Above holds when t's mean is above v beyond its CI.
func Above(t Term, v float64) Check { return threshold{source{term: &t}, false, v} }

// BelowAll holds when every point of s is below v beyond its CI.
func BelowAll(s Series, v float64) Check { return threshold{source{series: &s}, true, v} }

func (c threshold) Kind() string {
	if c.below {
		return "below"
	}
	return "above"
}

func (c threshold) Rule() string {
	op := " > "
	if c.below {
		op = " < "
	}
	return c.src.String() + op + fmtNum(c.bound)
}

func (c threshold) uses() []use { return []use{c.src.use()} }

func (c threshold) eval(r Results) CheckResult {
	return perPoint(c, c.src, r, func(st Stat) (Verdict, string) {
		d := st.Mean - c.bound
		if c.below {
			d = -d
		}
		return signVerdict(decide(d, st.ci())), ""
	})
}

// interval: a value within the paper's number or range, give or take a
// tolerance.
type interval struct {
	src    source
	lo, hi float64 // the paper's value or range
	tol    Tol
}

// Near holds when t's mean lies within tol of the paper's value; it fails
// when the whole CI lies outside that band.
func Near(t Term, paper float64, tol Tol) Check {
	return interval{source{term: &t}, paper, paper, tol}
}

// InRange holds when every point of s lies within the paper's range
// lo–hi widened by tol on each side; it fails when a point's whole CI lies
// outside.
func InRange(s Series, lo, hi float64, tol Tol) Check {
	return interval{source{series: &s}, lo, hi, tol}
}

// AtMost holds when every point of s is at most hi (+ tol); it fails when
// a point's whole CI lies above.
func AtMost(s Series, hi float64, tol Tol) Check {
	return interval{source{series: &s}, math.Inf(-1), hi, tol}
}

func (c interval) Kind() string {
	switch {
	case math.IsInf(c.lo, -1):
		return "at most"
	case c.lo == c.hi:
		return "near"
	}
	return "in range"
}

func (c interval) Rule() string {
	switch {
	case math.IsInf(c.lo, -1):
		return fmt.Sprintf("%s ≤ the paper's %s + %s", c.src, fmtNum(c.hi), c.tol)
	case c.lo == c.hi:
		return fmt.Sprintf("%s ≈ the paper's %s ± %s", c.src, fmtNum(c.lo), c.tol)
	}
	return fmt.Sprintf("%s in the paper's range %s–%s ± %s", c.src, fmtNum(c.lo), fmtNum(c.hi), c.tol)
}

func (c interval) uses() []use { return []use{c.src.use()} }

func (c interval) eval(r Results) CheckResult {
	return perPoint(c, c.src, r, func(st Stat) (Verdict, string) {
		lo, hi := c.lo-c.tol.of(c.lo, c.lo), c.hi+c.tol.of(c.hi, c.hi)
		dist := math.Max(lo-st.Mean, st.Mean-hi)
		switch {
		case dist <= 0:
			return Holds, ""
		case decide(dist, st.ci()) == 1:
			return Fails, "outside by " + fmtNum(dist)
		}
		return Inconclusive, "outside by " + fmtNum(dist) + ", within the CI"
	})
}

// alike decides |a − b| ≤ tol.
func alike(a, b Stat, tol Tol) (Verdict, string) {
	d := math.Abs(a.Mean - b.Mean)
	allowed := tol.of(a.Mean, b.Mean)
	h := hw(a.ci(), b.ci())
	detail := fmt.Sprintf("|difference| %s ± %s, allowed %s", fmtNum(d), fmtNum(h), fmtNum(allowed))
	switch {
	case d <= allowed:
		return Holds, detail
	case decide(d-allowed, h) == 1:
		return Fails, detail
	}
	return Inconclusive, detail
}
