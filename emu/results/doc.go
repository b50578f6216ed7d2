// Package results owns every file a run or a sweep writes: the Go types of
// summary.json, config.json, counters.json, plan.json and the sweep table
// behind sweep.csv, the column layouts of timeseries.csv and of the per-flow
// logs the endpoints write (receive log, one-way delays, TCP_INFO samples),
// the layout of a run and a sweep directory (RunDir, SweepDir: the one place
// a file's name is spelled, layout.go), and the one writer they all go
// through (writer.go: atomic, modes from the umask, and under sudo the
// invoking user's). Writers and readers of a format live beside its type,
// so a format has exactly one definition; docs/results.md documents each
// of them.
//
// The package is pure: it imports no kernel-facing package and does no
// measuring. emu writes these files, emu/sweep and analysis read them.
package results
