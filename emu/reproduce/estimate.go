package reproduce

import (
	"time"

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
// skip), with their expected wall time one run at a time.
func (p *Plan) Estimate(root string) (perPreset [][2]Estimate, total, todo Estimate) {
	for _, s := range p.Sweeps {
		var all, left Estimate
		per := map[string]time.Duration{}
		for _, r := range s.Plan.Runs {
			d, ok := per[r.Point]
			if !ok {
				pt, _ := s.Plan.Point(r.Point)
				d = sweep.EstimateRun(pt.Config)
				per[r.Point] = d
			}
			all.Runs++
			all.Wall += d
			if !sweep.Completed(s.Dir(root), s.Plan, r) {
				left.Runs++
				left.Wall += d
			}
		}
		perPreset = append(perPreset, [2]Estimate{all, left})
		total.Runs, total.Wall = total.Runs+all.Runs, total.Wall+all.Wall
		todo.Runs, todo.Wall = todo.Runs+left.Runs, todo.Wall+left.Wall
	}
	return perPreset, total, todo
}
