package sweep

import (
	"fmt"
	"math"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

// metricLabel is a metric's y-axis label with its unit.
func metricLabel(m string) string {
	if l, ok := delayMetricLabel(m); ok {
		return l
	}
	if l, ok := pdcpMetricLabel(m); ok {
		return l
	}
	if l, ok := cpuMetricLabel(m); ok {
		return l
	}
	switch {
	case m == results.MetricGoodput:
		return "total goodput (Mbit/s)"
	case m == results.MetricJFI:
		return "Jain's fairness index"
	case m == results.MetricUtilization:
		return "goodput / bottleneck capacity"
	case isFlowGoodput(m):
		f, _ := results.GoodputFlow(m)
		return fmt.Sprintf("goodput of %s (Mbit/s)", f)
	case workloadLabel(m) != "":
		return workloadLabel(m)
	}
	return m
}

// RunMetrics returns the metrics of one run from its summary. A metric the
// run cannot give (no flows, no link capacities) is NaN.
func RunMetrics(s *results.Summary) map[string]float64 {
	m := map[string]float64{
		results.MetricGoodput:     math.NaN(),
		results.MetricJFI:         math.NaN(),
		results.MetricUtilization: math.NaN(),
	}
	if len(s.Flows) == 0 {
		return m
	}
	total := 0.0
	for _, f := range s.Flows {
		m[results.FlowGoodput(f.Name)] = f.GoodputMbps
		total += f.GoodputMbps
	}
	m[results.MetricGoodput] = total
	addDelayMetrics(m, s)
	addPDCPMetrics(m, s)
	addQueueDrops(m, s)
	m[results.MetricJFI] = s.JFI
	if c := bottleneckMbps(s); c > 0 {
		m[results.MetricUtilization] = total / c
	}
	addWorkloadMetrics(m, s)
	addTransferMetrics(m, s)
	addCPUMetrics(m, s)
	return m
}

// addQueueDrops adds each direction's drops at the rate limiters' queue
// limits, all links summed: where a sender (or the PDCP host, without
// flow control) overfilled a link.
func addQueueDrops(m map[string]float64, s *results.Summary) {
	for _, l := range s.Links {
		k := results.DirQueueDrops(l.Dir)
		m[k] += float64(l.Drops)
	}
}

// bottleneckMbps is the summed downlink capacity of the links the run's
// flows use, and the uplink capacity of those its uploads use.
func bottleneckMbps(s *results.Summary) float64 {
	used, up := usedLinks(s), uploadLinks(s)
	c := 0.0
	for _, l := range s.Links {
		if l.Dir == "down" && used[l.Name] || l.Dir == "up" && up[l.Name] {
			c += l.CapacityMbps
		}
	}
	return c
}

// usedLinks names the links the run's flows use (a DC flow both, or link1
// alone with dc.enabled=false).
func usedLinks(s *results.Summary) map[string]bool {
	used := map[string]bool{}
	for _, f := range s.Flows {
		switch f.Path {
		case config.PathDC:
			used[config.PathLink1] = true
			if s.Config["dc.enabled"] != "false" {
				used[config.PathLink2] = true
			}
		case config.PathMPTCP:
			used[config.PathLink1], used[config.PathLink2] = true, true
		default:
			used[f.Path] = true
		}
	}
	return used
}

// isFlowGoodput says whether m is one flow's goodput metric.
func isFlowGoodput(m string) bool { _, ok := results.GoodputFlow(m); return ok }
