package sweep

import "github.com/dc-emu/emu/emu/results"

// Completed reports whether dir holds run r of plan p done for good with
// the default reruns: status ok, its seed and its point's configuration,
// and an emulation that kept up or was degraded in 1 + DefaultReruns
// attempts; or the sweep's record holds it ended ok. It is the run an
// Execute with Options.Reruns nil would skip.
func Completed(dir string, p *results.Plan, r results.Run) bool {
	_, recorded := recordFor(dir, p).done(dir, r)
	return recorded || completed(dir, p, r, DefaultReruns)
}

// Remaining are the runs of runs that dir does not hold Completed: what a
// resumed Execute would do, for the estimates.
func Remaining(dir string, p *results.Plan, runs []results.Run) []results.Run {
	rec := recordFor(dir, p)
	var left []results.Run
	for _, r := range runs {
		if _, recorded := rec.done(dir, r); !recorded && !completed(dir, p, r, DefaultReruns) {
			left = append(left, r)
		}
	}
	return left
}
