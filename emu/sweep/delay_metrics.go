package sweep

import (
	"fmt"
	"strings"

	"github.com/dc-emu/emu/emu/results"
)

// Delay metrics: one flow's 95th-percentile RTT and one-way delay over a
// run (summary.json's rtt_ms.p95 and owd_ms.p95), milliseconds. A run
// whose flow has no such figure (an ngtcp2 client reads no send stamps)
// leaves the metric out rather than counting it as unknown.
const (
	rttP95Suffix = ".rtt_p95_ms"
	owdP95Suffix = ".owd_p95_ms"
)

func flowRTTMetric(name string) string { return "flow." + name + rttP95Suffix }
func flowOWDMetric(name string) string { return "flow." + name + owdP95Suffix }

// addDelayMetrics adds each flow's p95 RTT and one-way delay to m.
func addDelayMetrics(m map[string]float64, s *results.Summary) {
	for _, f := range s.Flows {
		if f.RTTMs != nil {
			m[flowRTTMetric(f.Name)] = f.RTTMs.P95
		}
		if f.OWDMs != nil {
			m[flowOWDMetric(f.Name)] = f.OWDMs.P95
		}
	}
}

// delayMetricLabel is the axis label of a delay metric.
func delayMetricLabel(m string) (string, bool) {
	return labelBySuffix(m, "flow.",
		labelFormat{rttP95Suffix, "p95 RTT of %s (ms)"},
		labelFormat{owdP95Suffix, "p95 one-way delay of %s (ms)"})
}

// labelFormat is the axis label of the metrics that end in suffix: a format
// given what stands between the metric's prefix and the suffix.
type labelFormat struct{ suffix, format string }

// labelBySuffix is the axis label of m when it is prefix, a name and the
// suffix of one of formats: that format, given the name.
func labelBySuffix(m, prefix string, formats ...labelFormat) (string, bool) {
	name, ok := strings.CutPrefix(m, prefix)
	if !ok {
		return "", false
	}
	for _, f := range formats {
		if n, ok := strings.CutSuffix(name, f.suffix); ok {
			return fmt.Sprintf(f.format, n), true
		}
	}
	return "", false
}
