package findings

import "github.com/dc-emu/emu/emu/results"

// Metric names, as sweep.csv spells them (docs/results.md). The first
// three and FlowGoodput are in every sweep; the others (NeededMetrics)
// emu/sweep computes from each run's summary.json and timeseries.csv
// (sweep.SeriesMetrics): a sweep without them, aggregated before they
// existed or from runs without a time series, leaves the findings that
// read them NotJudged.
const (
	// MetricGoodput is the sum of the flows' goodput (Mbit/s).
	MetricGoodput = "total.goodput_mbps"
	// MetricJFI is Jain's index over the flows' goodput.
	MetricJFI = "jfi"
	// MetricUtilization is total goodput over the used downlinks' capacity.
	MetricUtilization = "utilization"

	// MetricLinksDown is the combined downlink throughput (Mbit/s): the sum
	// over summary.json links[] with dir "down" of throughput_mbps (IP
	// bytes that left the rate limiter, before the delay line's loss).
	MetricLinksDown = "link.down.throughput_mbps"
	// MetricUnderused is the fraction of a run's 100 ms bins
	// (timeseries.csv, from the first to the last bin with goodput) in
	// which at least one downlink carried less than half its capacity
	// (link<N>.down.throughput_mbps < 0.5 × link<N>.down.capacity_mbps).
	MetricUnderused = "link.down.underused_frac"
	// MetricJFI1s and MetricJFI10s are the mean, over a run's consecutive
	// windows of 1 s and 10 s (timeseries.csv's flow columns), of Jain's
	// index of the flows' goodput within the window.
	MetricJFI1s  = "jfi.window_1s"
	MetricJFI10s = "jfi.window_10s"
)

// FlowGoodput is the goodput metric of one flow (Mbit/s); the fairness
// flows are dc, link1 and link2.
func FlowGoodput(name string) string { return "flow." + name + ".goodput_mbps" }

// LinkUtilizationP99 is the 99th percentile, over a run's 100 ms bins
// while its flows run (timeseries.csv), of a downlink's throughput over its
// capacity: "link2.down.utilization_p99". It says whether a link reaches
// its capacity even in bursts.
func LinkUtilizationP99(link string) string { return link + ".down.utilization_p99" }

// NeededMetrics lists the metrics the findings read beyond the basic ones,
// with what each is computed from.
func NeededMetrics() [][2]string {
	return [][2]string{
		{MetricLinksDown, "Σ " + results.SummaryFile + " links[dir=down].throughput_mbps"},
		{MetricUnderused, results.TimeseriesFile + ": fraction of 100 ms bins with a downlink below half its capacity"},
		{MetricJFI1s, results.TimeseriesFile + " flow columns: mean JFI over 1 s windows"},
		{MetricJFI10s, results.TimeseriesFile + " flow columns: mean JFI over 10 s windows"},
		{LinkUtilizationP99("link1"), results.TimeseriesFile + ": p99 over 100 ms bins of link1.down throughput / capacity"},
		{LinkUtilizationP99("link2"), results.TimeseriesFile + ": p99 over 100 ms bins of link2.down throughput / capacity"},
	}
}
