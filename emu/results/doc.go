// Package results owns every file a run or a sweep writes: the Go types of
// summary.json, config.json, counters.json, plan.json and the sweep table
// behind sweep.csv, the column layouts of timeseries.csv and of the per-flow
// logs the endpoints write (receive log, one-way delays, TCP_INFO samples),
// and the one atomic writer they all go through. Writers and readers of a
// format live beside its type, so a format has exactly one definition;
// docs/results.md documents each of them.
//
// The package is pure: it imports no kernel-facing package and does no
// measuring. emu writes these files, emu/sweep and analysis read them.
package results
