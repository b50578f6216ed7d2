package reproduce

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study/paper"
	"github.com/dc-emu/emu/emu/sweep"
)

// Plan is a reproduction: every preset of the chosen parts at one scale,
// each with its resolved sweep plan, in the order of the paper's table.
type Plan struct {
	Scale paper.ReproduceScale
	// Parts are the parts chosen, in the order of AllParts.
	Parts  []string
	Sweeps []Sweep
}

// Sweep is one preset of a reproduction and its plan.
type Sweep struct {
	Preset sweep.Preset
	Plan   *results.Plan
	// Held says that Plan.Only left the preset out of this session:
	// Execute does not run it, the report reads what is on disk of it.
	Held bool
}

// Dir is the preset's sweep directory within the reproduction's.
func (s *Sweep) Dir(root string) string { return filepath.Join(root, s.Preset.Name) }

// AllParts are the parts of the reproduction, in table order.
func AllParts() []string {
	return []string{paper.PartCore, paper.PartQueue, paper.PartJitter, paper.PartNgtcp2, paper.PartTrace}
}

// DefaultParts is what runs without a choice: the paper's core figures.
func DefaultParts() []string { return []string{paper.PartCore} }

// NewPlan resolves the reproduction at a scale (quick or paper) for the
// given parts (none: DefaultParts). Every error is in what was asked for:
// an unknown scale or part, or a preset that does not resolve.
func NewPlan(scale string, parts []string) (*Plan, error) {
	sc, ok := paper.LookupReproduceScale(scale)
	if !ok {
		var names []string
		for _, s := range paper.ReproduceScales() {
			names = append(names, s.Name)
		}
		return nil, fmt.Errorf("reproduce: no scale %q (want %s)", scale, strings.Join(names, " or "))
	}
	if len(parts) == 0 {
		parts = DefaultParts()
	}
	var chosen []string
	for _, p := range parts {
		if !slices.Contains(AllParts(), p) {
			return nil, fmt.Errorf("reproduce: no part %q (want some of %s)", p, strings.Join(AllParts(), ", "))
		}
	}
	for _, p := range AllParts() {
		if slices.Contains(parts, p) {
			chosen = append(chosen, p)
		}
	}
	presets, err := paper.ReproducePresets(sc, chosen...)
	if err != nil {
		return nil, err
	}
	pl := &Plan{Scale: sc, Parts: chosen}
	for _, pr := range presets {
		spec, err := pr.Spec()
		if err != nil {
			return nil, err
		}
		p, err := sweep.NewPlan(spec)
		if err != nil {
			return nil, fmt.Errorf("reproduce: preset %s: %w", pr.Name, err)
		}
		pl.Sweeps = append(pl.Sweeps, Sweep{Preset: pr, Plan: p})
	}
	return pl, nil
}

// Runs counts the runs of every preset.
func (p *Plan) Runs() int {
	n := 0
	for _, s := range p.Sweeps {
		n += len(s.Plan.Runs)
	}
	return n
}

// Presets names the plan's presets in order.
func (p *Plan) Presets() []string {
	var out []string
	for _, s := range p.Sweeps {
		out = append(out, s.Preset.Name)
	}
	return out
}

// studies is what reads a reproduction's sweeps: the paper's study.
func studies() sweep.Catalog { return sweep.Catalog{paper.Study()} }
