// Package multipath is the study of transport-layer against link-layer
// multipath over the same two links: single path, MPTCP and DC over a
// grid of link2's capacity and delay, read as relative goodput against
// the best single path.
package multipath

import (
	"fmt"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study/paper"
	"github.com/dc-emu/emu/emu/sweep"
)

// Study is the multipath study's preset, multipath-grid; its heat map of
// relative goodput is the engine's (a grid with a baseline axis).
func Study() sweep.Study { return sweep.PresetsOnly{multipathPreset()} }

// The multipath-grid preset's link1, which stays fixed while link2 goes
// down in capacity and up in delay: link1 is always the better link, so
// the single-path baseline runs on link1.
const (
	multipathRateMbit = 20
	multipathDelayMs  = 10
)

// multipathRatios are the grid's capacity and delay ratios link1:link2.
var multipathRatios = []int{1, 2, 5, 10}

// MultipathAxis is the key of the multipath-grid preset's axis of how a
// download uses the links; its baseline is the single path.
const MultipathAxis = "multipath"

// multipathAxes returns the multipath-grid preset's axes: link2's capacity
// and delay as ratios of link1's (the DC split follows the capacity
// ratio), and the download as single path on link1, MPTCP over both links
// or DC over both, with the single path as the baseline of relative
// goodput. The single path resets link2 to link1's values, which it does
// not use, so all its points are one point measured once per repeat.
func multipathAxes() []results.Axis {
	var capacity, delay []sweep.Value
	for _, r := range multipathRatios {
		label := fmt.Sprintf("%d:1", r)
		capacity = append(capacity, sweep.Value{Label: label, Set: []string{
			"link2.rate=" + formatMbit(float64(multipathRateMbit)/float64(r)), "dc.split=" + label}})
		delay = append(delay, sweep.Value{Label: label, Set: []string{fmt.Sprintf("link2.delay=%dms", multipathDelayMs*r)}})
	}
	mode := sweep.Labeled(MultipathAxis,
		sweep.Value{Label: "single", Set: []string{"flow.path=link1", "flows.0.name=single",
			fmt.Sprintf("link2.rate=%dmbit", multipathRateMbit), fmt.Sprintf("link2.delay=%dms", multipathDelayMs), "dc.split=1:1"}},
		sweep.Value{Label: "mptcp", Set: []string{"flow.path=mptcp", "flows.0.name=mptcp"}},
		sweep.Value{Label: "dc", Set: []string{"flow.path=dc", "flows.0.name=dc"}})
	mode.Baseline = "single"
	return []results.Axis{sweep.Labeled("capacity_ratio", capacity...), sweep.Labeled("delay_ratio", delay...), mode}
}

// formatMbit writes a rate in Mbit/s for a setting, without trailing zeros.
func formatMbit(v float64) string {
	return fmt.Sprintf("%gmbit", v)
}

// multipathPreset is the study of transport-layer (MPTCP) against
// link-layer (DC) multipath over the same two links.
func multipathPreset() sweep.Preset {
	return sweep.Preset{
		Name:     "multipath-grid",
		Title:    "single path, MPTCP and DC over a grid of link2 capacity × delay: relative goodput (multipath ÷ best single path)",
		Figure:   "MPTCP-vs-TCP study in miniature (not in the paper)",
		Scenario: "throughput",
		Settings: []string{"link.trace=none", fmt.Sprintf("link.rate=%dmbit", multipathRateMbit), fmt.Sprintf("link.delay=%dms", multipathDelayMs),
			paper.Queue, "flow.proto=tcp", "flow.cc=cubic", "flow.size=20MB"},
		Axes: multipathAxes(), Grid: true, Repeat: 3,
		Notes: "After the study of MPTCP against single-path TCP in a 5G context (2000 capacity/delay configurations of a primary and a secondary path, eight scheduler × congestion-control pairs), in miniature: " +
			"link1 stays at 20 Mbit/s and 10 ms one-way (10 % jitter), link2 has 1/1, 1/2, 1/5 and 1/10 of its capacity (capacity_ratio link1:link2) and 1, 2, 5 and 10 times its delay (delay_ratio), both directions; " +
			"a 100 ms queue at every link's rate. Each grid point downloads 20 MB with kernel TCP CUBIC three ways (the multipath axis): single path on link1, the better link at every point; MPTCP (in-kernel path manager, default scheduler, a subflow per link); " +
			"and DC (PDCP batch 100, split matched to the capacity ratio). relative_goodput is a run's goodput ÷ the mean goodput of the single path; " +
			"the figure relative-goodput-capacity_ratio-delay_ratio shows it for MPTCP and DC side by side. The single path does not use link2, so its runs are one point (labels * in " + results.CSVFile + "). " +
			"Other congestion controls: --set flow.cc=bbr; the MPTCP path manager: the mptcp.* keys.",
	}
}
