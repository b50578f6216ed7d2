package cc

import (
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/study/studytest"
)

// TestPresets: cca-5g is four traces × five controllers; in lfn the flow
// mixes have the named QUIC and TCP flows.
func TestPresets(t *testing.T) {
	if p := studytest.Named(t, Study(), "cca-5g"); len(p.Points) != 20 {
		t.Errorf("cca-5g: %d points", len(p.Points))
	}
	p := studytest.Named(t, Study(), "lfn")
	for _, pt := range p.Points {
		var q, tc int
		for _, f := range studytest.Config(t, p, pt.ID).Flows {
			switch {
			case f.Proto == "quic" && strings.HasPrefix(f.Name, "quic"):
				q++
			case f.Proto == "tcp" && strings.HasPrefix(f.Name, "tcp"):
				tc++
			default:
				t.Errorf("lfn %s: flow %s proto %s", pt.ID, f.Name, f.Proto)
			}
			if f.Proto == "tcp" && f.CC != "cubic" {
				t.Errorf("lfn %s: TCP flow %s with cc %q, want cubic", pt.ID, f.Name, f.CC)
			}
			if f.Path != "link1" || f.Duration == 0 || f.Size != 0 {
				t.Errorf("lfn %s: flow %+v", pt.ID, f)
			}
		}
		label := pt.Labels["flows"]
		wantQ, wantT := 0, 0
		for part := range strings.SplitSeq(label, "+") {
			n := int(part[0] - '0')
			if strings.HasSuffix(part, "q") {
				wantQ = n
			} else {
				wantT = n
			}
		}
		if q != wantQ || tc != wantT {
			t.Errorf("lfn %s (%s): %d QUIC and %d TCP flows", pt.ID, label, q, tc)
		}
	}
}
