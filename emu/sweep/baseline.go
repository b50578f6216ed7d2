package sweep

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/stats"
)

// AnyLabel is a point's label on an axis when several of the axis's
// values resolved to that one configuration (a value that sets what
// another axis's value then overrides).
const AnyLabel = "*"

// baselineAxis returns the index of the axis with a baseline, or -1. At
// most one axis may have one, its baseline must be one of its values, and
// the plan must be a grid (a baseline point shares every other axis's
// value).
func baselineAxis(axes []results.Axis, grid bool) (int, error) {
	b := -1
	for i, a := range axes {
		if a.Baseline == "" {
			continue
		}
		if b >= 0 {
			return -1, fmt.Errorf("axes %s and %s both have a baseline; at most one may", axes[b].Key, a.Key)
		}
		if !slices.Contains(a.Values, a.Baseline) {
			return -1, fmt.Errorf("axis %s: baseline %q is not one of its values", a.Key, a.Baseline)
		}
		if !grid {
			return -1, fmt.Errorf("axis %s has a baseline: the sweep must be a grid", a.Key)
		}
		b = i
	}
	return b, nil
}

// setBaselines gives every point the id of its baseline point: the point
// of the combination with axis b at its baseline value and the same
// values elsewhere. combos are the plan's combinations, point[i] the
// index of the point combos[i] resolved to.
func setBaselines(p *results.Plan, b int, combos []combo, point []int) {
	key := func(labels map[string]string) string {
		var parts []string
		for _, a := range p.Vary {
			parts = append(parts, labels[a.Key])
		}
		return strings.Join(parts, "\x00")
	}
	byLabels := map[string]int{}
	for i, c := range combos {
		byLabels[key(c.labels)] = i
	}
	axis := p.Vary[b]
	for i, c := range combos {
		pt := &p.Points[point[i]]
		if pt.Baseline != "" {
			continue // the first of the combinations it stands for decides
		}
		bl := make(map[string]string, len(c.labels))
		for k, v := range c.labels {
			bl[k] = v
		}
		bl[axis.Key] = axis.Baseline
		if j, ok := byLabels[key(bl)]; ok {
			pt.Baseline = p.Points[point[j]].ID
		}
	}
}

// mergeLabels adds the labels of another combination that resolved to
// the same configuration as a point: an axis on which they differ gets
// AnyLabel.
func mergeLabels(dst, src map[string]string) {
	for k, v := range src {
		if old, ok := dst[k]; ok && old != v {
			v = AnyLabel
		}
		dst[k] = v
	}
}

// addRelativeGoodput sets results.MetricRelativeGoodput of every counted run of
// a plan with a baseline axis, and adds it to the per-point values.
func addRelativeGoodput(p *results.Plan, runs []results.RunResult, perPoint map[string]map[string][]float64) {
	base := map[string]float64{} // point id → mean total goodput
	for _, pt := range p.Points {
		if pt.Baseline == "" {
			continue
		}
		if _, done := base[pt.Baseline]; !done {
			base[pt.Baseline] = stats.MeanOmitNaN(perPoint[pt.Baseline][results.MetricGoodput]) // NaN without runs
		}
	}
	for i := range runs {
		r := &runs[i]
		pt, ok := p.Point(r.Point)
		if !r.Included || !ok || pt.Baseline == "" {
			continue
		}
		rel := math.NaN()
		if m := base[pt.Baseline]; m > 0 {
			rel = r.Metrics[results.MetricGoodput] / m
		}
		r.Metrics[results.MetricRelativeGoodput] = rel
		perPoint[r.Point][results.MetricRelativeGoodput] = append(perPoint[r.Point][results.MetricRelativeGoodput], rel)
	}
}
