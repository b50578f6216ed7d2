package reproduce

import (
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// Runs take sweep.EstimateRun, the one time model of emu (its figures are
// sweep.RunOverhead and sweep.FlowEfficiency).

// Estimate is a count of runs and their expected wall time.
type Estimate struct {
	Runs int
	Wall time.Duration
}

// Estimate returns, for each preset of p in order and in total, every run
// and the runs still to do in root (those a resumed Execute would not
// skip), with their expected wall time when jobs runs run at once (0 or 1:
// one at a time), by sweep.EstimateWall, the one time model of emu,
// scaled for a preset that root already holds runs of by how long they
// took against the model (sweep.ElapsedIn). A preset held by Plan.Only has
// nothing to do now: its remaining runs count only in perPreset.
func (p *Plan) Estimate(root string, jobs int) (perPreset [][2]Estimate, total, todo Estimate) {
	for _, s := range p.Sweeps {
		left := s.left(root)
		sch := sweep.Schedule{Jobs: jobs}
		el := sweep.ElapsedIn(s.Dir(root), s.Plan)
		all := Estimate{Runs: len(s.Plan.Runs), Wall: el.Scale(sweep.EstimateWall(s.Plan, s.Plan.Runs, sch))}
		rest := Estimate{Runs: len(left), Wall: el.Scale(sweep.EstimateWall(s.Plan, left, sch))}
		perPreset = append(perPreset, [2]Estimate{all, rest})
		total.Runs, total.Wall = total.Runs+all.Runs, total.Wall+all.Wall
		if !s.Held {
			todo.Runs, todo.Wall = todo.Runs+rest.Runs, todo.Wall+rest.Wall
		}
	}
	return perPreset, total, todo
}

// EstimateDisk returns the bytes the runs still to do in root (those of
// presets not held) are expected
// to leave on disk with their qlogs handled as q (sweep.EstimateDisk, the
// one disk model).
func (p *Plan) EstimateDisk(root string, q results.QlogPolicy) float64 {
	total := 0.0
	for _, s := range p.Sweeps {
		if s.Held {
			continue
		}
		total += sweep.EstimateDisk(s.Plan, s.left(root), q)
	}
	return total
}

// left are the runs of s that a resumed Execute in root would not skip.
func (s *Sweep) left(root string) []results.Run {
	return sweep.Remaining(s.Dir(root), s.Plan, s.Plan.Runs)
}
