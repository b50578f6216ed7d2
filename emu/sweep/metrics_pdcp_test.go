package sweep

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

func TestPDCPMetrics(t *testing.T) {
	s := &results.Summary{
		DurationS: 60,
		Flows:     []results.FlowResult{{Name: "dc", Path: "dc", GoodputMbps: 1.02}},
		PDCP: map[string]results.PDCPCounters{
			"down": {Expiries: 68, GivenUp: 260, HoldMs: map[string]float64{"p50": 0, "p95": 286.72}},
			"up":   {Expiries: 0},
		},
	}
	m := RunMetrics(s)
	for k, want := range map[string]float64{
		"pdcp.down.expiries_per_s": 68.0 / 60,
		"pdcp.down.hold_p95_ms":    286.72,
		"pdcp.up.expiries_per_s":   0,
	} {
		if got, ok := m[k]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
		}
	}
	// A direction without hold times has no hold metric rather than a zero.
	if _, ok := m["pdcp.up.hold_p95_ms"]; ok {
		t.Error("pdcp.up.hold_p95_ms without hold times")
	}
	// A run without DC has none of them.
	for k := range RunMetrics(&results.Summary{DurationS: 60, Flows: s.Flows[:1]}) {
		if strings.HasPrefix(k, "pdcp.") {
			t.Errorf("a run without PDCP counters has %s", k)
		}
	}
	for m, want := range map[string]string{
		"pdcp.down.expiries_per_s": "t-Reordering expiries per s (down)",
		"pdcp.down.hold_p95_ms":    "p95 PDCP hold, down (ms)",
	} {
		if got := metricLabel(m); got != want {
			t.Errorf("metricLabel(%s) = %q, want %q", m, got, want)
		}
	}
}

// TestPDCPFlowControlMetrics: a direction with flow control has its host's
// drops, its p95 wait when SDUs waited, and each leg's credit-limited
// time; one without flow control has none of them.
func TestPDCPFlowControlMetrics(t *testing.T) {
	s := &results.Summary{
		DurationS: 60,
		Flows:     []results.FlowResult{{Name: "dc", Path: "dc", GoodputMbps: 30}},
		PDCP: map[string]results.PDCPCounters{
			"down": {FlowControl: &results.FlowControl{
				Legs: []results.LegFlowControl{
					{Link: "link1", Reports: 900, CreditLimitedS: 1.5},
					{Link: "link2", Reports: 800, CreditLimitedS: 12.25},
				},
				HostHeld: 5000, HostDropped: 7,
				HostWaitMs: map[string]float64{"n": 5000, "p50": 2, "p95": 18.5, "max": 60},
			}},
			"up": {FlowControl: &results.FlowControl{
				Legs:       []results.LegFlowControl{{Link: "link1"}},
				HostWaitMs: map[string]float64{"n": 0, "p50": 0, "p95": 0, "max": 0},
			}},
		},
	}
	m := RunMetrics(s)
	for k, want := range map[string]float64{
		"pdcp.down.fc_host_dropped":    7,
		"pdcp.down.fc_wait_p95_ms":     18.5,
		"pdcp.down.link1.fc_limited_s": 1.5,
		"pdcp.down.link2.fc_limited_s": 12.25,
		"pdcp.up.fc_host_dropped":      0,
		"pdcp.up.link1.fc_limited_s":   0,
	} {
		if got, ok := m[k]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
		}
	}
	// Nothing waited upstream: no wait percentile rather than a zero.
	if _, ok := m["pdcp.up.fc_wait_p95_ms"]; ok {
		t.Error("pdcp.up.fc_wait_p95_ms when no SDU waited")
	}
	// Without flow control (dc.fc=off) none of them.
	for k := range RunMetrics(&results.Summary{DurationS: 60, Flows: s.Flows,
		PDCP: map[string]results.PDCPCounters{"down": {Expiries: 1}}}) {
		if strings.Contains(k, ".fc_") {
			t.Errorf("a run without flow control has %s", k)
		}
	}
	for m, want := range map[string]string{
		"pdcp.down.fc_host_dropped":    "SDUs dropped before an SN by flow control (down)",
		"pdcp.down.fc_wait_p95_ms":     "p95 wait for flow-control credit, down (ms)",
		"pdcp.down.link2.fc_limited_s": "time link2 was credit-limited, down (s)",
	} {
		if got := metricLabel(m); got != want {
			t.Errorf("metricLabel(%s) = %q, want %q", m, got, want)
		}
	}
	// They sort among the other metrics a run reported, before JFI and
	// utilization, and none is a flow's.
	order := metricOrder(&results.Plan{}, []results.RunResult{{Metrics: m}})
	if order[0] != results.MetricGoodput || order[len(order)-2] != results.MetricJFI || order[len(order)-1] != results.MetricUtilization {
		t.Errorf("metric order %v", order)
	}
	for _, k := range order {
		if strings.Contains(k, ".fc_") && isFlowMetric(k) {
			t.Errorf("%s taken for a flow's goodput", k)
		}
	}
	if !slices.Contains(order, "pdcp.down.link1.fc_limited_s") {
		t.Errorf("metric order %v lacks pdcp.down.link1.fc_limited_s", order)
	}
}
