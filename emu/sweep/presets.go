package sweep

import (
	"fmt"
	"slices"

	"github.com/dc-emu/emu/emu/results"
)

// Preset is a named sweep: the base settings, the axes and how many
// repeats, with the figure of the paper ("QUIC Throughput and Fairness over
// Dual Connectivity", Computer Networks) or the study it reproduces.
type Preset struct {
	Name   string
	Title  string // what it measures
	Figure string // the paper's figure, or the kind of study
	// Scenario is throughput (one DC download) or fairness (a DC client
	// and one client on each link, sharing the links for a fixed time).
	Scenario string
	// Settings build the base configuration; --set and --trace given with
	// the preset come after them, so the same key given again wins.
	Settings []string
	Axes     []results.Axis
	Grid     bool
	Repeat   int
	// Notes say which figure the preset is, why the durations and sizes
	// are what they are, and which of the paper's choices it cannot match.
	Notes string
	// Part names the presets its study runs together (the parts of the
	// paper's reproduction, emu/study/paper), or is "".
	Part string
}

func (p Preset) clone() Preset {
	p.Settings = slices.Clone(p.Settings)
	p.Axes = slices.Clone(p.Axes)
	return p
}

// Spec returns the preset's sweep, to which the caller adds its own
// settings (after the preset's, so they win) and overrides.
func (p Preset) Spec() (Spec, error) {
	sets, err := parseSettings(p.Settings)
	if err != nil {
		return Spec{}, fmt.Errorf("preset %s: %w", p.Name, err)
	}
	return Spec{
		Preset: p.Name, Scenario: p.Scenario, Settings: sets,
		Axes: slices.Clone(p.Axes), Grid: p.Grid, Repeat: p.Repeat,
	}, nil
}
