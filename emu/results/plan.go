package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// FileSlug makes a sweep key or metric name part of a figure's file name
// in FiguresDir: lower case, every character but a-z, 0-9, '.', '-' and
// '_' replaced by '_'. Sweeps name their figures with it and emu
// reproduce finds them by it.
func FileSlug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// PlanVersion is the version of plan.json this emu writes and reads.
const PlanVersion = 1

// Plan is a sweep's plan.json (docs/results.md): what it varies, its
// points and its runs, fixed before any run starts.
type Plan struct {
	Version  int    `json:"version"`
	Preset   string `json:"preset,omitempty"`
	Scenario string `json:"scenario"`
	Vary     []Axis `json:"vary"`
	Grid     bool   `json:"grid"`
	Repeat   int    `json:"repeat"`
	// Seed is the base seed.
	Seed uint64 `json:"seed"`
	// Settings are the base settings as given (key=value).
	Settings []string `json:"settings"`
	// Base is every canonical key of the base configuration.
	Base   map[string]string `json:"base"`
	Points []Point           `json:"points"`
	Runs   []Run             `json:"runs"`
}

// Axis is one varied parameter. Key names it in plan.json and as a column of
// sweep.csv: a dotted key of `emu config` (dc.batch), several keys that take
// the same value joined by "+" (link.bw_ratio+dc.split: the split follows the
// bandwidth ratio), or a name of a preset's own (rtt). Each value is a label
// and the settings it stands for, applied on top of the base configuration.
type Axis struct {
	Key      string     `json:"key"`
	Values   []string   `json:"values"`
	Settings [][]string `json:"settings"`
	// Default is the axis's value in the base configuration when it can be
	// named (the column value of points that vary another axis); "" if not.
	Default string `json:"default,omitempty"`
	// Baseline, if set, is the value of this axis the other values are
	// compared to: each point's relative goodput divides by the goodput of
	// the point with this value and the same values on the other axes
	// (Point.Baseline).
	Baseline string `json:"baseline,omitempty"`
}

// Plain reports whether every value of the axis sets exactly its keys to
// its label (dc.batch=100, or a+b=1:1 setting a=1:1 and b=1:1), so the axis
// can be written in --vary syntax and its labels are the keys' values.
func (a Axis) Plain() bool {
	keys := strings.Split(a.Key, "+")
	for i, v := range a.Values {
		if len(a.Settings[i]) != len(keys) {
			return false
		}
		for j, k := range keys {
			if a.Settings[i][j] != k+"="+v {
				return false
			}
		}
	}
	return true
}

// Point is one configuration of a sweep.
type Point struct {
	ID string `json:"id"`
	// Labels holds, for each axis whose value this point is, that value.
	// One axis at a time, a point equal to the base carries the labels of
	// every axis value that resolved to it.
	Labels map[string]string `json:"labels"`
	// Settings are applied on top of the base settings.
	Settings []string `json:"settings"`
	// Params are the canonical keys whose value differs from the base;
	// Unset marks a key the point does not have (fewer flows).
	Params map[string]string `json:"params"`
	// Baseline is the id of the point this one's relative goodput divides
	// by, when an axis has a baseline (itself for a baseline point).
	Baseline string `json:"baseline,omitempty"`
}

// Unset marks, in a point's Params, a key the point's configuration does
// not have (fewer flows than the base).
const Unset = "(unset)"

// Run is one repeat of one point.
type Run struct {
	ID     string `json:"id"`
	Point  string `json:"point"`
	Repeat int    `json:"repeat"` // 1-based
	Seed   uint64 `json:"seed"`
}

// Point returns the point with the given id.
func (p *Plan) Point(id string) (*Point, bool) {
	for i := range p.Points {
		if p.Points[i].ID == id {
			return &p.Points[i], true
		}
	}
	return nil, false
}

// Label returns a point's value on an axis: its own label, else the axis's
// base value (one axis at a time), else "".
func (p *Plan) Label(pt *Point, axis Axis) string {
	if v, ok := pt.Labels[axis.Key]; ok {
		return v
	}
	return axis.Default
}

// Describe is a point's labels in axis order, "dc.batch=100 dc.split=1:1".
func (p *Plan) Describe(pt *Point) string {
	var parts []string
	for _, a := range p.Vary {
		if v, ok := pt.Labels[a.Key]; ok {
			parts = append(parts, a.Key+"="+v)
		}
	}
	if len(parts) == 0 {
		return "base"
	}
	return strings.Join(parts, " ")
}

// JoinSorted is m as "k=v" pairs sorted by key and joined by spaces: a
// point's Params or a finding's labels on one line ("" when m is empty).
func JoinSorted(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, " ")
}

// ParsePlan decodes and checks a plan.json: its version, that ids are
// unique directory names and that every run's point exists.
func ParsePlan(b []byte) (*Plan, error) {
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return &p, nil
}

// check validates a plan read from a file: ids are directory names and
// every run's point exists.
func (p *Plan) check() error {
	if p.Version != PlanVersion {
		return fmt.Errorf("version %d: this emu writes version %d", p.Version, PlanVersion)
	}
	ids := map[string]bool{}
	for i, pt := range p.Points {
		if !safeName(pt.ID) || ids[pt.ID] {
			return fmt.Errorf("points[%d]: id %q is not a unique directory name", i, pt.ID)
		}
		ids[pt.ID] = true
	}
	for i, pt := range p.Points {
		if pt.Baseline != "" && !ids[pt.Baseline] {
			return fmt.Errorf("points[%d] (%s): baseline %q is not in points", i, pt.ID, pt.Baseline)
		}
	}
	runs := map[string]bool{}
	for i, r := range p.Runs {
		if !safeName(r.ID) || runs[r.ID] {
			return fmt.Errorf("runs[%d]: id %q is not a unique directory name", i, r.ID)
		}
		runs[r.ID] = true
		if !ids[r.Point] {
			return fmt.Errorf("runs[%d] (%s): point %q is not in points", i, r.ID, r.Point)
		}
	}
	if len(p.Runs) == 0 {
		return errors.New("no runs")
	}
	return nil
}

func safeName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 100 {
		return false
	}
	return !strings.ContainsAny(s, "/\\\x00")
}
