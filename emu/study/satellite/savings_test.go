package satellite

import (
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

// TestTransferSavings: each variant stack is compared with its base at
// the same other labels, per size and over all, beside the report's
// figure; a point without its base counts for nothing.
func TestTransferSavings(t *testing.T) {
	p := &results.Plan{Vary: []results.Axis{
		{Key: axisRTT, Values: []string{"100ms", "500ms"}},
		{Key: axisSize, Values: []string{"1MB"}},
		{Key: axisStack, Values: []string{"quic-go", "quic-go-0rtt", "tcp", "tcp-pep"}},
	}}
	row := func(rtt, stack string, fct float64) results.SweepRow {
		return results.SweepRow{Labels: map[string]string{axisRTT: rtt, axisSize: "1MB", axisStack: stack},
			Stats: map[string]results.Stat{results.MetricTransferTime: {N: 3, Mean: fct}}}
	}
	tab := &results.SweepTable{Plan: p, Rows: []results.SweepRow{
		row("100ms", "quic-go", 1.0), row("100ms", "quic-go-0rtt", 0.9),
		row("500ms", "quic-go", 4.0), row("500ms", "quic-go-0rtt", 3.0),
		row("100ms", "tcp", 2.0), row("100ms", "tcp-pep", 2.0),
		row("500ms", "tcp-pep", 1.0), // no tcp point at 500 ms
	}}
	var b strings.Builder
	writeSavings(&b, tab)
	out := b.String()
	for _, want := range []string{
		"0-RTT  quic-go-0rtt vs quic-go  1MB   2  17.5 %  14 %",
		"0-RTT  quic-go-0rtt vs quic-go  all   2  17.5 %  14 %",
		"split-TCP PEP  tcp-pep vs tcp  1MB   1  0.0 %  -",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("no line %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "resumed path state") {
		t.Errorf("a comparison without its stacks:\n%s", out)
	}
	b.Reset()
	writeSavings(&b, &results.SweepTable{Plan: &results.Plan{Vary: p.Vary[:2]}})
	if b.Len() != 0 {
		t.Errorf("a plan without a stack axis: %q", b.String())
	}
}
