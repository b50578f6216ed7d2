// Package stats is the one place emu computes its statistics: means, the
// sample standard deviation and the Student-t 95 % confidence interval over
// repeated runs (docs/metrics.md §5), nearest-rank percentiles, and Jain's
// fairness index (docs/metrics.md §1). A run's summary, the sweep's
// aggregation and figures, emu analyze and the findings' verdicts all use
// these functions, so a mean, a p99 or a CI means the same thing wherever a
// file or a table reports one.
//
// It is pure arithmetic on float64 slices: no I/O, no types of results
// files (emu/results turns a Summary into its JSON Stat and delay samples
// into DelayStats), and it imports nothing of the module. NaN stands for a
// value that is missing; each function says whether it leaves NaN values
// out or lets them through, and none panics on any input.
//
// The duration histograms of the packet path (PDCP hold times, delay-line
// lateness) have their own bins and quantile rule in internal/durhist, and
// a trace's time-weighted percentiles are tracefmt's: those count weighted
// or binned data, not samples.
package stats
