package sweep

import (
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

// testPlan resolves a spec or fails the test.
func testPlan(t *testing.T, s Spec) *results.Plan {
	t.Helper()
	if s.Scenario == "" {
		s.Scenario = "throughput"
	}
	if s.Repeat == 0 {
		s.Repeat = 3
	}
	p, err := NewPlan(s)
	if err != nil {
		t.Fatalf("NewPlan: %v", err)
	}
	return p
}

func axes(t *testing.T, vs ...string) []results.Axis {
	t.Helper()
	var out []results.Axis
	for _, v := range vs {
		a, err := ParseVary(v)
		if err != nil {
			t.Fatalf("ParseVary(%q): %v", v, err)
		}
		out = append(out, a)
	}
	return out
}
