package sweep

import (
	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/results"
)

// Analyze is emu analyze of the sweep directory dir: the sweep's own
// aggregation (o) decides which runs count, and each counted run's
// analysis (ro) adds its figures to the run's metrics and is written to
// the run's analysis.json. The table goes to out as JSON, or to the
// sweep's analysis.json when out is ""; Analyze returns it and where it
// went.
func Analyze(dir string, ro analysis.RunOptions, o AggregateOptions, out string) (*results.SweepTable, string, error) {
	sd := results.SweepDir(dir)
	p, err := sd.ReadPlan()
	if err != nil {
		return nil, "", err
	}
	runs := &analysis.SweepRuns{Options: ro}
	o.Extra = runs.Metrics
	t, err := Aggregate(dir, p, o)
	if err != nil {
		return nil, "", err
	}
	if err := runs.Write(); err != nil {
		return nil, "", err
	}
	if out == "" {
		out, err = sd.WriteAnalysis(t)
	} else {
		err = results.WriteJSON(out, t)
	}
	return t, out, err
}
