package satellite

import (
	"slices"
	"strings"

	"gonum.org/v1/plot/palette/moreland"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// Axes the used-bandwidth heat maps look for: a grid over the transfer's
// size (x) and RTT (y), one panel per stack, one figure per value of the
// other axes (the satellite preset's bottleneck pair).
const (
	axisSize  = "size"
	axisRTT   = "rtt"
	axisStack = "stack"
)

// usedBandwidthFigures draws, for a grid with size, rtt and stack axes
// whose runs have results.MetricTransferUtilization, the satellite
// study's used-bandwidth maps: mean goodput over the bottleneck capacity
// per size × RTT, a panel per stack, a figure per combination of the
// other axes' values that has runs. Nil for any other plan.
func usedBandwidthFigures(t *results.SweepTable) ([]sweep.Figure, error) {
	p := t.Plan
	ax, ay, stack, ok := transferAxes(p)
	if !p.Grid || !ok || !hasMetric(t, results.MetricTransferUtilization) {
		return nil, nil
	}
	var others []results.Axis
	for _, a := range p.Vary {
		if a.Key != axisSize && a.Key != axisRTT && a.Key != axisStack {
			others = append(others, a)
		}
	}
	cm := moreland.SmoothBlueRed() // blue: little of the link used, red: all of it
	cm.SetMin(0)
	cm.SetMax(1)
	var figs []sweep.Figure
	for _, combo := range combinations(others) {
		match := func(r *results.SweepRow) bool {
			for i, a := range others {
				if r.Labels[a.Key] != combo[i] {
					return false
				}
			}
			return true
		}
		var panels []sweep.HeatPanel
		for _, s := range stack.Values {
			panels = append(panels, sweep.HeatPanel{Title: s, Match: func(r *results.SweepRow) bool { return match(r) && r.Labels[axisStack] == s }})
		}
		svg, png, filled, err := sweep.HeatMap(t, ax, ay, results.MetricTransferUtilization, panels, cm, 1, "used bandwidth")
		if err != nil {
			return nil, err
		}
		if filled == 0 {
			continue // a slice of the grid (--only) that did not run here
		}
		where := describe(others, combo)
		figs = append(figs, sweep.Figure{Name: "used-bandwidth" + slugOf(combo), Title: "Used bandwidth over size × RTT per stack" + where,
			Caption: "Mean goodput ÷ bottleneck capacity of each point's transfers (" + results.MetricTransferUtilization +
				"), per object size (x) and RTT (y), one panel per stack" + where + ". Blue: little of the link used; red: all of it. Grey: no runs.",
			SVG: svg, PNG: png})
	}
	return figs, nil
}

// transferAxes finds the size, rtt and stack axes of a plan.
func transferAxes(p *results.Plan) (size, rtt, stack results.Axis, ok bool) {
	n := 0
	for _, a := range p.Vary {
		switch a.Key {
		case axisSize:
			size, n = a, n+1
		case axisRTT:
			rtt, n = a, n+1
		case axisStack:
			stack, n = a, n+1
		}
	}
	return size, rtt, stack, n == 3
}

func hasMetric(t *results.SweepTable, m string) bool {
	return slices.ContainsFunc(t.Rows, func(r results.SweepRow) bool { return r.Stats[m].N > 0 })
}

// combinations lists every combination of the axes' values, in order; one
// empty combination for no axes.
func combinations(axes []results.Axis) [][]string {
	out := [][]string{nil}
	for _, a := range axes {
		var next [][]string
		for _, c := range out {
			for _, v := range a.Values {
				next = append(next, append(slices.Clone(c), v))
			}
		}
		out = next
	}
	return out
}

// describe is ", pair=50M/25M" for one combination; "" for none.
func describe(axes []results.Axis, combo []string) string {
	var parts []string
	for i, a := range axes {
		parts = append(parts, a.Key+"="+combo[i])
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}

// slugOf is "-50m-25m" for one combination; "" for none.
func slugOf(combo []string) string {
	s := ""
	for _, v := range combo {
		s += "-" + results.FileSlug(v)
	}
	return s
}
