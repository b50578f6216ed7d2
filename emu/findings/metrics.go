package findings

import "github.com/dc-emu/emu/emu/results"

// NeededMetrics lists the metrics the findings read beyond the basic ones,
// with what each is computed from.
func NeededMetrics() [][2]string {
	return [][2]string{
		{results.MetricLinksDown, "Σ " + results.SummaryFile + " links[dir=down].throughput_mbps"},
		{results.MetricUnderused, results.TimeseriesFile + ": fraction of 100 ms bins with a downlink below half its capacity"},
		{results.MetricJFI1s, results.TimeseriesFile + " flow columns: mean JFI over 1 s windows"},
		{results.MetricJFI10s, results.TimeseriesFile + " flow columns: mean JFI over 10 s windows"},
		{results.LinkUtilizationP99("link1"), results.TimeseriesFile + ": p99 over 100 ms bins of link1.down throughput / capacity"},
		{results.LinkUtilizationP99("link2"), results.TimeseriesFile + ": p99 over 100 ms bins of link2.down throughput / capacity"},
	}
}
