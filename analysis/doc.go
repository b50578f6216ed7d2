// Package analysis turns what an emu run leaves behind — qlog files,
// TCP_INFO and one-way delay logs, timeseries.csv, summary.json,
// counters.json — into the figures researchers report: per-flow goodput,
// RTT and one-way delay, congestion window, losses and receiver-side
// reordering (RFC 4737), Jain's fairness index, link utilization, PDCP
// repairs, and mean / sd / 95 % confidence intervals over repeated runs.
// It also draws the plots (gonum/plot, SVG and PNG), writes a run's
// self-contained report page (report.go), makes qlog files loadable in
// older qvis builds, and plots bandwidth traces (traceplot.go). The
// statistics themselves (means, percentiles, Jain's index, confidence
// intervals) are internal/stats'.
//
// Reading qlog files is analysis/qlog's; this package turns the events it
// decodes into figures. A file cut short by a killed writer yields the
// analysis of its complete records plus an error wrapping
// qlog.ErrTruncated.
//
// The package is pure: the analysis reads through io.Reader and io/fs.FS
// and writes through io.Writer, so it runs anywhere (macOS included) and
// tests use in-memory file systems. It must not import netlink, nfqueue,
// os/exec or syscall. What emu analyze writes — analysis.json, the
// figures, report.html, qvis copies — files.go writes through emu/results'
// one writer (RunDir, atomic, the invoking user's under sudo); the
// cmd/emu/cli "analyze" command only maps flags and prints.
package analysis
