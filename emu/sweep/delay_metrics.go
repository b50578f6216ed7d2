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
	name, ok := strings.CutPrefix(m, "flow.")
	if !ok {
		return "", false
	}
	if f, ok := strings.CutSuffix(name, rttP95Suffix); ok {
		return fmt.Sprintf("p95 RTT of %s (ms)", f), true
	}
	if f, ok := strings.CutSuffix(name, owdP95Suffix); ok {
		return fmt.Sprintf("p95 one-way delay of %s (ms)", f), true
	}
	return "", false
}
