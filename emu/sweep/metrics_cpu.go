package sweep

import (
	"strings"

	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/results"
)

// addCPUMetrics adds where a run's CPU went, from its fidelity checks: the
// emulator's packet threads summed (results.MetricEmulatorCPU) and each
// flow's client and server (results.QClientCPU, QServerCPU). A run without
// a fidelity verdict (an old or a failed one) has none of them.
func addCPUMetrics(m map[string]float64, s *results.Summary) {
	if s.Fidelity == nil {
		return
	}
	emu, threads := 0.0, 0
	for _, c := range s.Fidelity.Checks {
		switch c.Name {
		case fidelity.CheckThreadCPU:
			emu += c.Value
			threads++
		case fidelity.CheckEndpointCPU:
			flow, role, ok := strings.Cut(c.Subject, " ")
			switch {
			case !ok:
			case role == "client":
				m[results.FlowMetric(flow, results.QClientCPU)] = c.Value
			case role == "server":
				m[results.FlowMetric(flow, results.QServerCPU)] = c.Value
			}
		}
	}
	if threads > 0 {
		m[results.MetricEmulatorCPU] = emu
	}
}

// cpuMetricLabel is the axis label of a CPU metric.
func cpuMetricLabel(m string) (string, bool) {
	if m == results.MetricEmulatorCPU {
		return "emulator's packet threads' CPU (cores)", true
	}
	return labelBySuffix(m, "flow.",
		labelFormat{"." + results.QClientCPU, "client CPU of %s (cores)"},
		labelFormat{"." + results.QServerCPU, "server CPU of %s (cores)"})
}
