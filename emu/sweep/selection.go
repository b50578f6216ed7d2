package sweep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/results"
)

// Selection limits a sweep to the points whose labels it names: for each
// axis, the values to keep (emu sweep --only rtt=100ms,500ms). A large
// grid runs a representative slice this way into the same directory, with
// the same point ids and seeds as the whole plan, so a later run of more
// of it resumes and aggregates with the slice. The zero Selection keeps
// every point.
type Selection map[string][]string

// ParseSelection reads --only arguments, KEY=V1,V2,…, against the axes of
// p: a key that is no axis or a value the axis does not have is an error
// naming them and what the plan offers.
func ParseSelection(p *results.Plan, args []string) (Selection, error) {
	s := Selection{}
	for _, arg := range args {
		key, vals, ok := strings.Cut(arg, "=")
		if !ok || key == "" || vals == "" {
			return nil, fmt.Errorf("--only %q: want AXIS=V1,V2,… (e.g. rtt=100ms,500ms)", arg)
		}
		i := slices.IndexFunc(p.Vary, func(a results.Axis) bool { return a.Key == key })
		if i < 0 {
			var keys []string
			for _, a := range p.Vary {
				keys = append(keys, a.Key)
			}
			return nil, fmt.Errorf("--only %q: the plan has no axis %s (its axes: %s)", arg, key, strings.Join(keys, ", "))
		}
		for _, v := range strings.Split(vals, ",") {
			v = strings.TrimSpace(v)
			if !slices.Contains(p.Vary[i].Values, v) {
				return nil, fmt.Errorf("--only %q: axis %s has no value %q (its values: %s)", arg, key, v, strings.Join(p.Vary[i].Values, ", "))
			}
			s[key] = append(s[key], v)
		}
	}
	return s, nil
}

// Runs keeps the runs of runs whose point has, for every axis of s, one of
// its values.
func (s Selection) Runs(p *results.Plan, runs []results.Run) []results.Run {
	if len(s) == 0 {
		return runs
	}
	var out []results.Run
	for _, r := range runs {
		pt, ok := p.Point(r.Point)
		if ok && s.keeps(pt) {
			out = append(out, r)
		}
	}
	return out
}

func (s Selection) keeps(pt *results.Point) bool {
	for key, vals := range s {
		if !slices.Contains(vals, pt.Labels[key]) {
			return false
		}
	}
	return true
}
