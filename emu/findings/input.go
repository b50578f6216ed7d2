package findings

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/results"
)

// Stat is one metric aggregated over a point's runs, as sweep.csv gives it:
// mean, sample standard deviation, half-width of the 95 % confidence
// interval (Student's t) and the number of runs. SD and CI95 are NaN below
// two runs, Mean is NaN without any. The fields are those of results.Stat,
// so reproduce.Stat(st) converts one.
type Stat struct {
	Mean float64
	SD   float64
	CI95 float64
	N    int
}

// ci is the confidence half-width, NaN when it is unknown (fewer than two
// runs).
func (s Stat) ci() float64 {
	if s.N < 2 {
		return math.NaN()
	}
	return s.CI95
}

// Axis is one varied parameter of a sweep: its key (a column of sweep.csv,
// e.g. dc.batch, link.bw_ratio+dc.split, stack) and its values in order.
type Axis struct {
	Key    string
	Values []string
}

// Point is one configuration of a sweep. Labels hold every axis's value as
// the sweep.csv column gives it (the base value for an axis the point does
// not vary); Metrics are keyed by the metric names of sweep.csv.
type Point struct {
	Labels  map[string]string
	Metrics map[string]Stat
}

// Sweep is one preset's aggregated results.
type Sweep struct {
	Preset string
	Axes   []Axis
	Points []Point
}

// Results are the sweeps of a reproduction by preset name.
type Results map[string]*Sweep

// At names one point: a preset and the axis values that pick it.
type At struct {
	Preset string
	Labels map[string]string
}

func (a At) String() string {
	if len(a.Labels) == 0 {
		return a.Preset
	}
	return a.Preset + "[" + results.JoinSorted(a.Labels) + "]"
}

// Term is one metric at one point.
type Term struct {
	At     At
	Metric string
}

func (t Term) String() string { return t.Metric + " at " + t.At.String() }

// Line is a preset's points along one axis, the other axes fixed. Values
// is a subset of the axis's values, in order; nil means all of them.
type Line struct {
	Preset string
	Axis   string
	Fixed  map[string]string
	Values []string
}

// Only returns the line restricted to some of its axis's values.
func (l Line) Only(values ...string) Line {
	l.Values = values
	return l
}

func (l Line) String() string {
	s := l.Preset + " along " + l.Axis
	if len(l.Values) > 0 {
		s += " ∈ {" + strings.Join(l.Values, ", ") + "}"
	}
	if len(l.Fixed) > 0 {
		s += " at " + results.JoinSorted(l.Fixed)
	}
	return s
}

// Series is one metric along a line.
type Series struct {
	Line   Line
	Metric string
}

func (s Series) String() string { return s.Metric + " of " + s.Line.String() }

// At returns the series' point at an axis value.
func (s Series) At(value string) Term {
	l := maps.Clone(s.Line.Fixed)
	if l == nil {
		l = map[string]string{}
	}
	l[s.Line.Axis] = value
	return Term{At: At{Preset: s.Line.Preset, Labels: l}, Metric: s.Metric}
}

// lookupError says why a point or metric is not there: missing data (a
// preset not run, a metric the sweep lacks) or, with ambiguous set, a rule
// that does not name one point.
type lookupError struct {
	msg       string
	ambiguous bool
}

func (e *lookupError) Error() string { return e.msg }

// point finds the one point of r a selection names.
func (r Results) point(a At) (*Point, error) {
	sw := r[a.Preset]
	if sw == nil {
		return nil, &lookupError{msg: "no results of preset " + a.Preset}
	}
	for k, v := range a.Labels {
		ax := sw.axis(k)
		if ax == nil {
			return nil, &lookupError{msg: fmt.Sprintf("preset %s has no axis %s", a.Preset, k), ambiguous: true}
		}
		if !slices.Contains(ax.Values, v) {
			return nil, &lookupError{msg: fmt.Sprintf("axis %s of preset %s has no value %s", k, a.Preset, v), ambiguous: true}
		}
	}
	var found *Point
	for i := range sw.Points {
		p := &sw.Points[i]
		if !matches(p.Labels, a.Labels) {
			continue
		}
		if found != nil {
			return nil, &lookupError{msg: fmt.Sprintf("%s names several points", a), ambiguous: true}
		}
		found = p
	}
	if found == nil {
		return nil, &lookupError{msg: fmt.Sprintf("no point %s", a)}
	}
	return found, nil
}

func matches(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func (sw *Sweep) axis(key string) *Axis {
	for i := range sw.Axes {
		if sw.Axes[i].Key == key {
			return &sw.Axes[i]
		}
	}
	return nil
}

// stat returns a term's value.
func (r Results) stat(t Term) (Stat, error) {
	p, err := r.point(t.At)
	if err != nil {
		return Stat{}, err
	}
	st, ok := p.Metrics[t.Metric]
	if !ok || st.N == 0 || math.IsNaN(st.Mean) {
		return Stat{}, &lookupError{msg: fmt.Sprintf("no %s", t)}
	}
	return st, nil
}

// values returns a line's axis values.
func (r Results) values(l Line) ([]string, error) {
	sw := r[l.Preset]
	if sw == nil {
		return nil, &lookupError{msg: "no results of preset " + l.Preset}
	}
	ax := sw.axis(l.Axis)
	if ax == nil {
		return nil, &lookupError{msg: fmt.Sprintf("preset %s has no axis %s", l.Preset, l.Axis), ambiguous: true}
	}
	if len(l.Values) == 0 {
		return ax.Values, nil
	}
	for _, v := range l.Values {
		if !slices.Contains(ax.Values, v) {
			return nil, &lookupError{msg: fmt.Sprintf("axis %s of preset %s has no value %s", l.Axis, l.Preset, v), ambiguous: true}
		}
	}
	return l.Values, nil
}

// FromTable turns a preset's aggregated sweep table into the findings'
// input: its axes, and per point its labels and each metric's statistics.
func FromTable(preset string, t *results.SweepTable) *Sweep {
	sw := &Sweep{Preset: preset}
	if t.Plan != nil {
		for _, a := range t.Plan.Vary {
			sw.Axes = append(sw.Axes, Axis{Key: a.Key, Values: slices.Clone(a.Values)})
		}
	}
	for _, r := range t.Rows {
		pt := Point{Labels: maps.Clone(r.Labels), Metrics: map[string]Stat{}}
		for m, st := range r.Stats {
			pt.Metrics[m] = Stat(st)
		}
		sw.Points = append(sw.Points, pt)
	}
	return sw
}
