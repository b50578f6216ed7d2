// Package studytest resolves a study's presets in its tests: the plan a
// preset makes and the configuration of each of its points, as emu sweep
// would resolve them before running anything.
package studytest

import (
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// Plan resolves pr into its sweep plan, failing tb when it does not.
func Plan(tb testing.TB, pr sweep.Preset) *results.Plan {
	tb.Helper()
	spec, err := pr.Spec()
	if err != nil {
		tb.Fatal(err)
	}
	p, err := sweep.NewPlan(spec)
	if err != nil {
		tb.Fatalf("preset %s: %v", pr.Name, err)
	}
	return p
}

// Named is Plan of the preset of that name in s.
func Named(tb testing.TB, s sweep.Study, name string) *results.Plan {
	tb.Helper()
	pr, ok := sweep.Catalog{s}.Preset(name)
	if !ok {
		tb.Fatalf("no preset %s", name)
	}
	return Plan(tb, pr)
}

// Config is the configuration of point id of p.
func Config(tb testing.TB, p *results.Plan, id string) config.Config {
	tb.Helper()
	c, err := sweep.PointConfig(p, id)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
