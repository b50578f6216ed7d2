package satellite

import (
	"testing"

	"github.com/dc-emu/emu/emu/study/studytest"
	"github.com/dc-emu/emu/emu/units"
)

// TestSatellitePreset: one path, DC off, the report's rate pairs, RTT =
// 2 × one-way delay, the PEP only in its stack; one object of the
// point's size per run on a new connection, or (ngtcp2) one download of
// that size.
func TestSatellitePreset(t *testing.T) {
	pairs := map[string][2]float64{"1M/100k": {1e6, 1e5}, "10M/2M": {10e6, 2e6}, "50M/25M": {50e6, 25e6}, "200M/100M": {200e6, 100e6}}
	sat := studytest.Named(t, Study(), "satellite")
	if len(sat.Points) != 4*5*4*6 {
		t.Errorf("satellite: %d points, want 4 pairs × 5 RTTs × 4 sizes × 6 stacks", len(sat.Points))
	}
	for _, pt := range sat.Points {
		c := studytest.Config(t, sat, pt.ID)
		want := pairs[pt.Labels["pair"]]
		if c.DC.Enabled || c.Flows[0].Path != "link1" || c.Links[0].Down.Rate != want[0] || c.Links[0].Up.Rate != want[1] {
			t.Errorf("satellite %s: %+v", pt.ID, c)
		}
		if c.PEP.Enabled != (pt.Labels["stack"] == "tcp-pep") {
			t.Errorf("satellite %s: stack %s with pep.enabled=%v", pt.ID, pt.Labels["stack"], c.PEP.Enabled)
		}
		if got := 2 * c.Links[0].Down.Delay; got.String() != pt.Labels["rtt"] {
			t.Errorf("satellite %s: RTT %v, label %s", pt.ID, got, pt.Labels["rtt"])
		}
		f := c.Flows[0]
		switch {
		case pt.Labels["stack"] == "ngtcp2-bbr":
			if f.Kind != "bulk" || units.FormatSize(f.Size) != pt.Labels["size"] || f.ServerImpl != "ngtcp2" || f.CC != "bbr" {
				t.Errorf("satellite %s: %+v", pt.ID, f)
			}
		case f.Kind != "objects" || f.Objects.String() != pt.Labels["size"] || f.Reuse || (f.Resume != "off" && f.Resume != "0rtt" && f.Resume != "bdp"):
			t.Errorf("satellite %s: %+v", pt.ID, f.Workload)
		}
	}
}
