package sweep

import (
	"io"

	"github.com/dc-emu/emu/emu/results"
)

// A Study is one line of research the engine runs: the presets it offers,
// and what only its sweeps are read for, tables after the summary and
// figures beside the engine's. The engine knows no study by name: a
// program hands it a Catalog, and each study decides from a sweep's
// plan and metrics whether the sweep is one it reads (a plan with the
// axes its table compares), so a sweep given with --vary gets the same
// tables as the preset it mirrors. A new study is a package with a type
// that satisfies Study, and one line in the program's catalog (emu/study).
type Study interface {
	// Presets are the study's presets, in the order --list-presets
	// prints them.
	Presets() []Preset
	// Tables writes the study's own tables of t after the summary;
	// nothing when t is not a sweep it reads.
	Tables(w io.Writer, t *results.SweepTable)
	// Figures draws the study's own figures of t; none when t is not a
	// sweep it reads.
	Figures(t *results.SweepTable) ([]Figure, error)
}

// PresetsOnly is a Study that offers presets and reads their sweeps with
// the engine's tables and figures alone.
type PresetsOnly []Preset

// Presets returns the presets.
func (p PresetsOnly) Presets() []Preset { return p }

// Tables writes nothing.
func (PresetsOnly) Tables(io.Writer, *results.SweepTable) {}

// Figures draws nothing.
func (PresetsOnly) Figures(*results.SweepTable) ([]Figure, error) { return nil, nil }

// A Catalog is the studies a program offers, in order: its presets are
// theirs, and a sweep gets each study's tables and figures.
type Catalog []Study

// Presets returns every study's presets, in order; each a copy the
// caller may change.
func (c Catalog) Presets() []Preset {
	var out []Preset
	for _, s := range c {
		for _, p := range s.Presets() {
			out = append(out, p.clone())
		}
	}
	return out
}

// Preset finds a preset by name.
func (c Catalog) Preset(name string) (Preset, bool) {
	for _, s := range c {
		for _, p := range s.Presets() {
			if p.Name == name {
				return p.clone(), true
			}
		}
	}
	return Preset{}, false
}

// PresetNames lists the presets' names, for error messages.
func (c Catalog) PresetNames() []string {
	var out []string
	for _, s := range c {
		for _, p := range s.Presets() {
			out = append(out, p.Name)
		}
	}
	return out
}

// tables writes every study's tables of t.
func (c Catalog) tables(w io.Writer, t *results.SweepTable) {
	for _, s := range c {
		s.Tables(w, t)
	}
}

// figures draws every study's figures of t.
func (c Catalog) figures(t *results.SweepTable) ([]Figure, error) {
	var out []Figure
	for _, s := range c {
		f, err := s.Figures(t)
		if err != nil {
			return nil, err
		}
		out = append(out, f...)
	}
	return out, nil
}
