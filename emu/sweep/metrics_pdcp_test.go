package sweep

import (
	"math"
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
