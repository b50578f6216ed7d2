package findings

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
)

// Verdict is what emu's data say about a finding or a check.
type Verdict string

const (
	// Holds: every check holds.
	Holds Verdict = "holds"
	// ShapeOnly: the shape checks hold, a magnitude check does not.
	ShapeOnly Verdict = "holds in shape but not in magnitude"
	// Fails: a shape check does not hold (its deciding difference lies
	// beyond the confidence interval).
	Fails Verdict = "does not hold"
	// Inconclusive: no check fails, but a deciding difference lies within
	// the confidence intervals.
	Inconclusive Verdict = "inconclusive"
	// NotJudged: the data are missing (a preset not run, a metric the
	// sweep lacks), or the finding is a reference without a rule.
	NotJudged Verdict = "not judged"
)

// Verdicts lists the verdicts in the order reports count them.
func Verdicts() []Verdict { return []Verdict{Holds, ShapeOnly, Fails, Inconclusive, NotJudged} }

// Part says whether a check judges the paper's shape or its numbers.
type Part string

const (
	Shape     Part = "shape"
	Magnitude Part = "magnitude"
)

// CheckResult is one check evaluated.
type CheckResult struct {
	Part    Part    `json:"part"`
	Kind    string  `json:"kind"`
	Rule    string  `json:"rule"`
	Verdict Verdict `json:"verdict"`
	// Detail gives the deciding numbers in words.
	Detail  string   `json:"detail"`
	Numbers []Number `json:"numbers"`
}

// Number is one value a check used.
type Number struct {
	Preset string            `json:"preset"`
	Labels map[string]string `json:"labels"`
	Metric string            `json:"metric"`
	Mean   Float             `json:"mean"`
	SD     Float             `json:"sd"`
	CI95   Float             `json:"ci95"`
	N      int               `json:"n"`
}

func number(t Term, st Stat) Number {
	return Number{Preset: t.At.Preset, Labels: t.At.Labels, Metric: t.Metric,
		Mean: Float(st.Mean), SD: Float(st.SD), CI95: Float(st.ci()), N: st.N}
}

// Float is a number that is null in JSON when it is not finite (an
// unknown SD or CI).
type Float float64

func (f Float) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// combine is the verdict of a finding from its checks: a failed shape
// check decides it; then missing data; then an undecided shape check; then
// the magnitude checks.
func combine(results []CheckResult) (Verdict, string) {
	if len(results) == 0 {
		return NotJudged, "a reference without a rule"
	}
	by := func(part Part, v Verdict) []string {
		var out []string
		for _, r := range results {
			if r.Part == part && r.Verdict == v {
				out = append(out, r.Rule)
			}
		}
		return out
	}
	either := func(v Verdict) []string { return append(by(Shape, v), by(Magnitude, v)...) }
	switch {
	case len(by(Shape, Fails)) > 0:
		return Fails, "fails: " + strings.Join(by(Shape, Fails), "; ")
	case len(either(NotJudged)) > 0:
		return NotJudged, "no data for: " + strings.Join(either(NotJudged), "; ")
	case len(by(Shape, Inconclusive)) > 0:
		return Inconclusive, "within the CI: " + strings.Join(by(Shape, Inconclusive), "; ")
	case len(by(Magnitude, Fails)) > 0:
		return ShapeOnly, "the shape holds; the magnitude fails: " + strings.Join(by(Magnitude, Fails), "; ")
	case len(by(Magnitude, Inconclusive)) > 0:
		return Inconclusive, "the shape holds; within the CI: " + strings.Join(by(Magnitude, Inconclusive), "; ")
	}
	return Holds, "every check holds"
}

// all combines the per-point outcomes of a check over several points: one
// decided failure fails it, then missing data, then one undecided point.
func all(vs []Verdict) Verdict {
	out := Holds
	for _, v := range vs {
		switch {
		case v == Fails:
			return Fails
		case v == NotJudged:
			out = NotJudged
		case v == Inconclusive && out == Holds:
			out = Inconclusive
		}
	}
	return out
}

// missing turns a lookup error into a result: missing data is NotJudged
// (and so is a rule that names no single point, which Validate catches
// before any run).
func missing(err error) (Verdict, string) {
	var le *lookupError
	if errors.As(err, &le) && le.ambiguous {
		return NotJudged, "rule error: " + le.msg
	}
	return NotJudged, err.Error()
}

// fmtStat writes mean ± CI (n), or mean (n) when the CI is unknown.
func fmtStat(st Stat) string {
	s := fmtNum(st.Mean)
	if ci := st.ci(); !math.IsNaN(ci) {
		s += " ± " + fmtNum(ci)
	}
	return s + " (n " + strconv.Itoa(st.N) + ")"
}

// fmtNum writes a number with four significant digits.
func fmtNum(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
