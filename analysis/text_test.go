package analysis

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
)

// TestTextGolden pins what emu analyze prints for a run and for a qlog file.
func TestTextGolden(t *testing.T) {
	var b bytes.Buffer
	WriteRun(&b, fairnessRun(t))
	emutest.Golden(t, "run.golden", b.Bytes())

	b.Reset()
	WriteQlog(&b, analyzeFile(t, "testdata/quicgo-client.sqlog", QlogOptions{}))
	emutest.Golden(t, "qlog.golden", b.Bytes())
}

// TestDelayJumpsFromSummary: the jumps a run recorded per link direction
// reach analysis.json's links, the figure's marks (each time once) and a
// line of the text.
func TestDelayJumpsFromSummary(t *testing.T) {
	sum := &results.Summary{Links: []results.LinkResult{
		{Name: "link1", Dir: "down", CapacityMbps: 48, ThroughputMbps: 40, DelayJumpsS: []float64{8.75, 23.73, 38.74}, DelayJumpPeriodS: 14.99},
		{Name: "link1", Dir: "up", CapacityMbps: 10, ThroughputMbps: 1, DelayJumpsS: []float64{8.75, 23.73, 38.74}, DelayJumpPeriodS: 14.99},
		{Name: "link2", Dir: "down", CapacityMbps: 5, ThroughputMbps: 4},
	}}
	ra := &RunAnalysis{Utilization: map[string]NullFloat{}}
	ra.computeLinks(sum)
	if got := ra.delayJumps(); !slices.Equal(got, []float64{8.75, 23.73, 38.74}) {
		t.Errorf("figure marks %v", got)
	}
	var b bytes.Buffer
	WriteRun(&b, ra)
	want := "link1 down: delay trace jumped 3 times, every 14.99 s (at 8.75, 23.73, 38.74 s)\n"
	if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "link2 down: delay") {
		t.Errorf("text:\n%s\nwant the line %q for link1 only", b.String(), want)
	}
	if s := jumpsText([]float64{1, 2}, 0); s != "delay trace jumped 2 times (at 1.00, 2.00 s)" {
		t.Errorf("irregular jumps: %q", s)
	}
}
