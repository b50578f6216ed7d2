package satellite

import (
	"slices"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

// TestUsedBandwidthFigures: a satellite-like grid gets one heat map per
// bottleneck pair, a panel per stack, each cell the points' mean used
// bandwidth; other plans get none.
func TestUsedBandwidthFigures(t *testing.T) {
	p := &results.Plan{Grid: true, Vary: []results.Axis{
		{Key: "pair", Values: []string{"1M/100k", "50M/25M"}},
		{Key: axisRTT, Values: []string{"100ms", "500ms"}},
		{Key: axisSize, Values: []string{"1MB", "10MB"}},
		{Key: axisStack, Values: []string{"tcp", "quic-go"}},
	}}
	tab := &results.SweepTable{Plan: p}
	for _, pair := range p.Vary[0].Values {
		for _, rtt := range p.Vary[1].Values {
			for _, size := range p.Vary[2].Values {
				for _, st := range p.Vary[3].Values {
					tab.Rows = append(tab.Rows, results.SweepRow{
						Labels: map[string]string{"pair": pair, axisRTT: rtt, axisSize: size, axisStack: st},
						Stats:  map[string]results.Stat{results.MetricTransferUtilization: {N: 3, Mean: 0.42}}})
				}
			}
		}
	}
	figs, err := usedBandwidthFigures(tab)
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 2 || figs[0].Name != "used-bandwidth-"+results.FileSlug("1M/100k") || !strings.Contains(figs[1].Title, "pair=50M/25M") {
		var names []string
		for _, f := range figs {
			names = append(names, f.Name+": "+f.Title)
		}
		t.Fatalf("figures %q", names)
	}
	svg := string(figs[0].SVG)
	for _, want := range []string{">tcp<", ">quic-go<", ">0.42<", ">500ms<", ">10MB<", "used bandwidth"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG has no %q", want)
		}
	}
	if n := strings.Count(svg, ">0.42<"); n != 8 {
		t.Errorf("%d cells written, want 2 stacks × 2 sizes × 2 RTTs", n)
	}
	// A slice (--only pair=1M/100k): no figure for the pair without runs.
	tab.Rows = slices.DeleteFunc(tab.Rows, func(r results.SweepRow) bool { return r.Labels["pair"] == "50M/25M" })
	if figs, err := usedBandwidthFigures(tab); err != nil || len(figs) != 1 {
		t.Errorf("a slice of one pair: %d figures, %v", len(figs), err)
	}
	p.Vary = p.Vary[:3]
	if figs, err := usedBandwidthFigures(tab); err != nil || figs != nil {
		t.Errorf("a plan without a stack axis: %v, %v", figs, err)
	}
}
