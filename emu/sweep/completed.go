package sweep

import "github.com/dc-emu/emu/emu/results"

// Completed reports whether dir holds run r of plan p done for good with
// the default reruns: status ok, its seed and its point's configuration,
// and an emulation that kept up or was degraded in 1 + DefaultReruns
// attempts; or the sweep's record holds it ended ok. It is the run an
// Execute with Options.Reruns nil would skip.
func Completed(dir string, p *results.Plan, r results.Run) bool {
	rec, err := readRecord(dir, p)
	return completed(dir, p, r, DefaultReruns) || (err == nil && rec.done(dir, r))
}

// Remaining are the runs of runs that dir does not hold Completed: what a
// resumed Execute would do, for the estimates.
func Remaining(dir string, p *results.Plan, runs []results.Run) []results.Run {
	rec, err := readRecord(dir, p)
	if err != nil {
		rec = runsRecord{} // Execute reports it
	}
	var left []results.Run
	for _, r := range runs {
		if !completed(dir, p, r, DefaultReruns) && !rec.done(dir, r) {
			left = append(left, r)
		}
	}
	return left
}
