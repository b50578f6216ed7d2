package paper

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/sweep"
)

// ReproduceScale is how long the runs of the paper's reproduction are.
type ReproduceScale struct {
	Name     string
	Repeat   int    // runs per point
	Duration string // fairness: every flow's measurement window (flow.duration)
	Size     string // throughput: the download (flow.size)
}

// ReproduceScales returns the scales of the paper's reproduction: quick,
// a first look in hours, and paper, the paper's own repeats, durations and
// sizes.
func ReproduceScales() []ReproduceScale {
	return []ReproduceScale{
		{Name: "quick", Repeat: 3, Duration: "60s", Size: "20MB"},
		{Name: "paper", Repeat: 10, Duration: "180s", Size: "100MB"},
	}
}

// LookupReproduceScale finds a scale by name.
func LookupReproduceScale(name string) (ReproduceScale, bool) {
	for _, s := range ReproduceScales() {
		if s.Name == name {
			return s, true
		}
	}
	return ReproduceScale{}, false
}

// ReproducePresets returns the presets of the paper's reproduction in
// table order, each with the scale's repeats and its download size
// (throughput) or duration (fairness) in place of the preset's own; parts
// selects PartCore, PartQueue, PartJitter, PartNgtcp2, PartTrace (none:
// all).
func ReproducePresets(sc ReproduceScale, parts ...string) ([]sweep.Preset, error) {
	if sc.Repeat < 1 || sc.Duration == "" || sc.Size == "" {
		return nil, fmt.Errorf("reproduce scale %q: needs repeats, a duration and a size", sc.Name)
	}
	for _, p := range parts {
		if !slices.Contains([]string{PartCore, PartQueue, PartJitter, PartNgtcp2, PartTrace}, p) {
			return nil, fmt.Errorf("reproduce: no part %q (want %s, %s, %s, %s or %s)", p, PartCore, PartQueue, PartJitter, PartNgtcp2, PartTrace)
		}
	}
	var out []sweep.Preset
	for _, p := range presets {
		if p.Part == "" || len(parts) > 0 && !slices.Contains(parts, p.Part) {
			continue
		}
		p.Settings, p.Axes = slices.Clone(p.Settings), slices.Clone(p.Axes)
		p.Repeat = sc.Repeat
		p.Settings = slices.DeleteFunc(p.Settings, func(s string) bool {
			return strings.HasPrefix(s, "flow.size=") || strings.HasPrefix(s, "flow.duration=")
		})
		if p.Scenario == "fairness" {
			p.Settings = append(p.Settings, "flow.duration="+sc.Duration)
		} else {
			p.Settings = append(p.Settings, "flow.size="+sc.Size)
		}
		out = append(out, p)
	}
	return out, nil
}
