package reproduce

import (
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/replay"
	"github.com/dc-emu/emu/emu/sweep"
)

// The time model's two figures, measured on the 2-core development VM
// with `emu run` (wall time of the command against the flows' times in
// summary.json), while other work kept the load at 5-8.
const (
	// RunOverhead is a run's wall time beyond its flows: building the
	// namespaces, links, delay lines and proxies, starting the endpoints,
	// the handshake, stopping everything and writing the run directory.
	// Nine runs (5 MB and 20 MB downloads, 5 s fairness) took 0.31-0.55 s
	// more than their flows, 0.39 s on average.
	RunOverhead = 400 * time.Millisecond
	// FlowEfficiency is the goodput a size-limited download reaches as a
	// share of its path's capacity, slow start included: 20 MB over the
	// DC path of 2 × 20 Mbit/s with 100 ms queues reached 0.67, 0.91 and
	// 0.93 in three runs, 5 MB 0.78.
	FlowEfficiency = 0.8
)

// EstimateRun is the expected wall time of one run of cfg: RunOverhead
// plus the end of its last flow. A flow limited by time ends at its start
// plus its duration; one limited by size at its start plus the time its
// bytes take at FlowEfficiency of its path's downlink capacity (both links
// for a DC flow; a trace's mean rate). Size-limited flows that run at the
// same time are assumed not to share a link (no preset has two).
func EstimateRun(cfg config.Config) time.Duration {
	var end time.Duration
	for _, f := range cfg.Flows {
		d := f.Duration
		if d <= 0 && f.Size > 0 {
			if r := pathRate(cfg, f.Path); r > 0 {
				d = time.Duration(float64(f.Size) * 8 / (FlowEfficiency * r) * float64(time.Second))
			}
		}
		end = max(end, f.Start+d)
	}
	return RunOverhead + end
}

// pathRate is the downlink capacity (bit/s) a path's flow can use.
func pathRate(cfg config.Config, path string) float64 {
	switch path {
	case config.PathLink1:
		return downRate(cfg, 0)
	case config.PathLink2:
		return downRate(cfg, 1)
	}
	if !cfg.DC.Enabled {
		return downRate(cfg, 0)
	}
	return downRate(cfg, 0) + downRate(cfg, 1)
}

// downRate is link i's downlink rate: the configured one, or the mean of
// its trace (0 when the trace cannot be read: the run would fail early).
func downRate(cfg config.Config, i int) float64 {
	l := cfg.Links[i]
	if l.Trace == "" || l.Trace == "none" {
		return l.Down.Rate
	}
	tr, err := replay.LoadTrace(l.Trace, cfg.Trace)
	if err != nil {
		return 0
	}
	return tr.Stats().Down.Mean * 1e6
}

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
				d = EstimateRun(pt.Config)
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
