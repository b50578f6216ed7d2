package latency

import (
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/study/studytest"
)

// TestPresets: rrul runs a download, an upload, a probe and VoIP at every
// point; steering gives the probe a scheduler of its own in four.
func TestPresets(t *testing.T) {
	p := studytest.Named(t, Study(), "rrul")
	for _, pt := range p.Points {
		var kinds []string
		for _, f := range studytest.Config(t, p, pt.ID).Flows {
			kinds = append(kinds, f.Kind+"/"+f.Direction)
		}
		if strings.Join(kinds, " ") != "bulk/down bulk/up rr/down cbr/down" {
			t.Errorf("rrul %s: flows %v", pt.ID, kinds)
		}
	}
	steered := 0
	p = studytest.Named(t, Study(), "steering")
	for _, pt := range p.Points {
		if studytest.Config(t, p, pt.ID).Flows[1].Kind != "rr" {
			t.Errorf("steering %s: flow 1 is %s", pt.ID, studytest.Config(t, p, pt.ID).Flows[1].Kind)
		}
		if studytest.Config(t, p, pt.ID).Flows[1].Steered() {
			steered++
		}
	}
	if steered != 4 {
		t.Errorf("steering: %d points steer the probe, want 4", steered)
	}
}
