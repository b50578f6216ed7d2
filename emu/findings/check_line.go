package findings

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dc-emu/emu/emu/results"
)

// seriesStats returns a series' axis values and their stats.
func seriesStats(r Results, s Series) ([]string, []Term, []Stat, error) {
	vals, err := r.values(s.Line)
	if err != nil {
		return nil, nil, nil, err
	}
	terms := make([]Term, len(vals))
	stats := make([]Stat, len(vals))
	for i, v := range vals {
		terms[i] = s.At(v)
		if stats[i], err = r.stat(terms[i]); err != nil {
			return nil, nil, nil, err
		}
	}
	return vals, terms, stats, nil
}

func numbers(terms []Term, stats []Stat) []Number {
	out := make([]Number, len(terms))
	for i := range terms {
		out[i] = number(terms[i], stats[i])
	}
	return out
}

// argmax: the peak lies in a set of axis values.
type argmax struct {
	s   Series
	set []string
}

// ArgmaxIn holds when the best point inside set beats the best outside it
// beyond the CI of their difference, and fails when it falls short beyond
// it.
func ArgmaxIn(s Series, set ...string) Check { return argmax{s, set} }

func (c argmax) Kind() string { return "argmax" }
func (c argmax) Rule() string {
	return fmt.Sprintf("argmax over %s of mean %s ∈ {%s}", c.s.Line, c.s.Metric, strings.Join(c.set, ", "))
}
func (c argmax) uses() []use { return []use{{line: &c.s.Line, metric: c.s.Metric}} }

func (c argmax) eval(r Results) CheckResult {
	vals, terms, stats, err := seriesStats(r, c.s)
	if err != nil {
		return notJudged(c, err)
	}
	in, out := -1, -1
	for i, v := range vals {
		best := &out
		if slices.Contains(c.set, v) {
			best = &in
		}
		if *best < 0 || stats[i].Mean > stats[*best].Mean {
			*best = i
		}
	}
	res := CheckResult{Kind: c.Kind(), Rule: c.Rule(), Numbers: numbers(terms, stats)}
	if in < 0 || out < 0 {
		res.Verdict, res.Detail = NotJudged, fmt.Sprintf("rule error: the set {%s} must split the axis's values %v", strings.Join(c.set, ", "), vals)
		return res
	}
	v, d := compare(stats[in], stats[out])
	res.Verdict = v
	res.Detail = fmt.Sprintf("best inside %s=%s: %s; best outside %s=%s: %s; %s",
		c.s.Line.Axis, vals[in], fmtStat(stats[in]), c.s.Line.Axis, vals[out], fmtStat(stats[out]), d)
	return res
}

// monotone: a trend along the axis.
type monotone struct {
	s          Series
	decreasing bool
}

// Decreasing holds when the last point is below the first beyond the CI of
// their difference and no step between neighbours rises beyond its CI; it
// fails when the last is above the first, or a step rises, beyond the CI.
func Decreasing(s Series) Check { return monotone{s, true} }

// Increasing is Decreasing mirrored.
func Increasing(s Series) Check { return monotone{s, false} }

func (c monotone) Kind() string {
	if c.decreasing {
		return "decreasing"
	}
	return "increasing"
}

func (c monotone) Rule() string {
	w, against := "falls", "rises"
	if !c.decreasing {
		w, against = "rises", "falls"
	}
	return fmt.Sprintf("%s %s along %s: from the first to the last point beyond the CI, and no step %s beyond its CI", c.s.Metric, w, c.s.Line, against)
}
func (c monotone) uses() []use { return []use{{line: &c.s.Line, metric: c.s.Metric}} }

func (c monotone) eval(r Results) CheckResult {
	vals, terms, stats, err := seriesStats(r, c.s)
	if err != nil {
		return notJudged(c, err)
	}
	sign := 1
	if !c.decreasing {
		sign = -1
	}
	// trend is +1 when a → b goes the claimed way beyond the CI.
	trend := func(a, b Stat) int { return sign * decide(a.Mean-b.Mean, hw(a.ci(), b.ci())) }
	res := CheckResult{Kind: c.Kind(), Rule: c.Rule(), Numbers: numbers(terms, stats)}
	if len(vals) < 2 {
		res.Verdict, res.Detail = NotJudged, "rule error: a trend needs two points"
		return res
	}
	var against []string
	for i := 1; i < len(vals); i++ {
		if trend(stats[i-1], stats[i]) == -1 {
			against = append(against, vals[i-1]+"→"+vals[i])
		}
	}
	first, last := stats[0], stats[len(stats)-1]
	overall := trend(first, last)
	res.Detail = fmt.Sprintf("%s=%s: %s; %s=%s: %s", c.s.Line.Axis, vals[0], fmtStat(first), c.s.Line.Axis, vals[len(vals)-1], fmtStat(last))
	if len(against) > 0 {
		res.Detail += "; against the trend beyond the CI: " + strings.Join(against, ", ")
	}
	switch {
	case overall == -1 || len(against) > 0:
		res.Verdict = Fails
	case overall == 1:
		res.Verdict = Holds
	default:
		res.Verdict = Inconclusive
	}
	return res
}

// flat: a series that hardly changes.
type flat struct {
	s   Series
	tol Tol
}

// Flat holds when the series' largest and smallest means differ by at most
// tol (relative: of the largest); it fails when they differ by more beyond
// the CI of the difference.
func Flat(s Series, tol Tol) Check { return flat{s, tol} }

func (c flat) Kind() string { return "flat" }
func (c flat) Rule() string {
	return fmt.Sprintf("max − min of %s ≤ %s", c.s, c.tol)
}
func (c flat) uses() []use { return []use{{line: &c.s.Line, metric: c.s.Metric}} }

func (c flat) eval(r Results) CheckResult {
	vals, terms, stats, err := seriesStats(r, c.s)
	if err != nil {
		return notJudged(c, err)
	}
	lo, hi := 0, 0
	for i := range stats {
		if stats[i].Mean < stats[lo].Mean {
			lo = i
		}
		if stats[i].Mean > stats[hi].Mean {
			hi = i
		}
	}
	v, d := alike(stats[hi], stats[lo], c.tol)
	return CheckResult{Kind: c.Kind(), Rule: c.Rule(), Verdict: v, Numbers: numbers(terms, stats),
		Detail: fmt.Sprintf("max at %s=%s: %s; min at %s=%s: %s; %s", c.s.Line.Axis, vals[hi], fmtStat(stats[hi]), c.s.Line.Axis, vals[lo], fmtStat(stats[lo]), d)}
}

// pointwise: a comparison of two series at their common axis values.
type pointwise struct {
	a, b  Series
	rel   relation
	share float64 // fraction of the points that must hold
}

// GreaterAlong holds when a > b (as Greater) at every value of a's axis.
func GreaterAlong(a, b Series) Check { return pointwise{a: a, b: b, share: 1} }

// WithinAlong holds when |a − b| ≤ tol (as Within) at at least share of
// a's axis values (1: all); it fails when too few can still hold.
func WithinAlong(a, b Series, tol Tol, share float64) Check {
	return pointwise{a: a, b: b, rel: relation{alike: true, tol: tol}, share: share}
}

func (c pointwise) Kind() string {
	if c.rel.alike {
		return "within along"
	}
	return "greater along"
}

func (c pointwise) Rule() string {
	q := "every " + c.a.Line.Axis + " value"
	if c.share < 1 {
		q = fmt.Sprintf("at least %s %% of the %s values", fmtNum(100*c.share), c.a.Line.Axis)
	}
	return c.rel.text(c.a.String(), c.b.String()) + " at " + q
}

func (c pointwise) uses() []use {
	return []use{{line: &c.a.Line, metric: c.a.Metric}, {line: &c.b.Line, metric: c.b.Metric}}
}

func (c pointwise) eval(r Results) CheckResult {
	vals, err := r.values(c.a.Line)
	if err != nil {
		return notJudged(c, err)
	}
	var pts tally
	for _, v := range vals {
		ta, tb := c.a.At(v), c.b.At(v)
		sa, err := r.stat(ta)
		if err == nil {
			var sb Stat
			if sb, err = r.stat(tb); err == nil {
				ok, d := c.rel.judge(sa, sb)
				pts.judged(ok, fmt.Sprintf("%s=%s: %s vs %s, %s (%s)", c.a.Line.Axis, v, fmtStat(sa), fmtStat(sb), d, ok), number(ta, sa), number(tb, sb))
				continue
			}
		}
		pts.missed(err)
	}
	res := pts.result(c)
	if c.share < 1 && res.Verdict != NotJudged {
		need := int(math.Ceil(c.share * float64(len(pts.verdicts))))
		held, open := 0, 0
		for _, v := range pts.verdicts {
			switch v {
			case Holds:
				held++
			case Inconclusive:
				open++
			}
		}
		switch {
		case held >= need:
			res.Verdict = Holds
		case held+open < need:
			res.Verdict = Fails
		default:
			res.Verdict = Inconclusive
		}
		res.Detail = fmt.Sprintf("%d of %d hold, %d needed; %s", held, len(pts.verdicts), need, res.Detail)
	}
	return res
}

// steadier: one series keeps more of its value between two axis values.
type steadier struct {
	a, b     Series
	from, to string
}

// Steadier holds when a keeps a larger share of its value from axis value
// from to to than b does, a(to)/a(from) > b(to)/b(from), beyond the CI of
// the difference (each ratio's CI by the delta method).
func Steadier(a, b Series, from, to string) Check { return steadier{a, b, from, to} }

func (c steadier) Kind() string { return "steadier" }
func (c steadier) Rule() string {
	return fmt.Sprintf("%s keeps more of its value from %s=%s to %s than %s: ratio to/from larger", c.a, c.a.Line.Axis, c.from, c.to, c.b)
}
func (c steadier) uses() []use {
	return []use{{line: &c.a.Line, metric: c.a.Metric}, {line: &c.b.Line, metric: c.b.Metric}}
}

func (c steadier) eval(r Results) CheckResult {
	terms := []Term{c.a.At(c.from), c.a.At(c.to), c.b.At(c.from), c.b.At(c.to)}
	stats := make([]Stat, len(terms))
	for i, t := range terms {
		var err error
		if stats[i], err = r.stat(t); err != nil {
			return notJudged(c, err)
		}
	}
	ra, ca := ratio(stats[1], stats[0])
	rb, cb := ratio(stats[3], stats[2])
	d, h := ra-rb, hw(ca, cb)
	return CheckResult{Kind: c.Kind(), Rule: c.Rule(), Verdict: signVerdict(decide(d, h)), Numbers: numbers(terms, stats),
		Detail: fmt.Sprintf("ratio %s ± %s (%s → %s) vs %s ± %s (%s → %s); difference %s ± %s",
			fmtNum(ra), fmtNum(ca), fmtStat(stats[0]), fmtStat(stats[1]), fmtNum(rb), fmtNum(cb), fmtStat(stats[2]), fmtStat(stats[3]), fmtNum(d), fmtNum(h))}
}

// ratio returns num/den and its CI half-width by the delta method.
func ratio(num, den Stat) (float64, float64) {
	q := num.Mean / den.Mean
	return q, math.Abs(q) * hw(num.ci()/num.Mean, den.ci()/den.Mean)
}

// dupRelation: the paper's X = B(1+p)/2 under duplication.
type dupRelation struct {
	l   Line
	tol Tol
}

// DupRelation holds when, at every loss rate p of a duplication line
// (axis link.loss), the goodput X (results.MetricGoodput) matches the paper's
// X = B(1+p)/2 within tol, B being the interface throughput after the
// loss. emu counts link throughput before its loss (results.MetricLinksDown), so B
// is that times (1−p) and the prediction B_emu(1−p²)/2. X/prediction's CI is
// the delta method's over both means.
func DupRelation(l Line, tol Tol) Check { return dupRelation{l, tol} }

func (c dupRelation) Kind() string { return "duplication relation" }
func (c dupRelation) Rule() string {
	return fmt.Sprintf("along %s: %s / (%s × (1 − p²) / 2) = 1 ± %s, p the loss rate (the paper's X = B(1+p)/2, B counted after the loss)",
		c.l, results.MetricGoodput, results.MetricLinksDown, c.tol)
}
func (c dupRelation) uses() []use {
	return []use{{line: &c.l, metric: results.MetricGoodput}, {line: &c.l, metric: results.MetricLinksDown}}
}

func (c dupRelation) eval(r Results) CheckResult {
	vals, err := r.values(c.l)
	if err != nil {
		return notJudged(c, err)
	}
	x, b := Series{c.l, results.MetricGoodput}, Series{c.l, results.MetricLinksDown}
	res := CheckResult{Kind: c.Kind(), Rule: c.Rule(), Numbers: []Number{}}
	var vs []Verdict
	var details []string
	for _, v := range vals {
		p, perr := parsePercent(v)
		if perr != nil {
			res.Verdict, res.Detail = NotJudged, "rule error: "+perr.Error()
			return res
		}
		tx, tb := x.At(v), b.At(v)
		sx, err := r.stat(tx)
		var sb Stat
		if err == nil {
			sb, err = r.stat(tb)
		}
		if err != nil {
			bad, d := missing(err)
			vs, details = append(vs, bad), append(details, d)
			continue
		}
		pred := Stat{Mean: sb.Mean * (1 - p*p) / 2, CI95: sb.ci() * (1 - p*p) / 2, N: sb.N}
		q, ci := ratio(sx, pred)
		dev := math.Abs(q - 1)
		ok := Holds
		switch {
		case dev <= c.tol.of(1, 1):
		case decide(dev-c.tol.of(1, 1), ci) == 1:
			ok = Fails
		default:
			ok = Inconclusive
		}
		vs = append(vs, ok)
		res.Numbers = append(res.Numbers, number(tx, sx), number(tb, sb))
		details = append(details, fmt.Sprintf("p=%s: X %s, B %s, X/prediction %s ± %s (%s)", v, fmtStat(sx), fmtStat(sb), fmtNum(q), fmtNum(ci), ok))
	}
	res.Verdict, res.Detail = all(vs), strings.Join(details, "; ")
	return res
}

// parsePercent parses a loss label such as "0.5%".
func parsePercent(s string) (float64, error) {
	n, ok := strings.CutSuffix(s, "%")
	v, err := strconv.ParseFloat(n, 64)
	if !ok || err != nil || !(v >= 0 && v <= 100) {
		return 0, fmt.Errorf("loss value %q is not a percentage", s)
	}
	return v / 100, nil
}
