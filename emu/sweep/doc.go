// Package sweep runs an experiment many times: it turns varied parameters
// (one at a time around a base configuration, the paper's method, or their
// cross product) into a plan of points and seeded repeats, executes the plan
// or one shard of it through a Runner, resumes where a previous attempt
// stopped, and aggregates the runs' summary.json files into sweep.csv
// (mean, standard deviation, 95 % confidence interval and n per point and
// metric), figures and a self-contained report.html.
//
// The plan is data and is fixed before anything runs: every point's
// configuration is resolved and validated up front, every run's seed is
// derived from the base seed, the point's configuration and the repeat, so
// shards on different machines and resumed sweeps agree on what each run
// is. A sweep directory is described in docs/results.md; how to spread one
// over machines in docs/sweeps.md.
//
// A Session drives a Job in its directory for `emu sweep` and `emu
// reproduce` alike: prepare the directory, say where it writes and how to
// resume, execute, report from whatever is done (after a stop too), and
// end with an error that says how the runs ended. PlanJob is one sweep as
// a Job; package reproduce has the other.
//
// Presets come from studies (Study, Catalog): each study offers its
// presets and may add tables and figures of its own to the sweeps it
// reads; the engine knows none by name (emu/study holds emu's).
//
// The package does not build networks itself: a Runner does one run (the
// CLI passes emu.Run), which keeps the planning, resuming and statistics
// testable without root.
package sweep
