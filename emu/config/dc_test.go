package config

import (
	"strings"
	"testing"
)

// TestDatapathKey: dc.datapath takes nfqueue and batch, the batch path
// beside single-link and MPTCP clients too (their packets cross in the
// same encapsulation), and a typo is refused with the values it takes.
func TestDatapathKey(t *testing.T) {
	for _, ok := range [][]string{
		{"dc.datapath=nfqueue"},
		{"dc.datapath=batch"},
		{"dc.datapath=batch", "dc.uplink=split"},
		{"dc.datapath=batch", "flows.count=2"},
		{"dc.datapath=batch", "dc.enabled=false", "flow.path=link1"},
		{"dc.datapath=batch", "flow.path=link2"},
		{"dc.datapath=batch", "flows.count=2", "flows.1.path=mptcp", "flows.1.proto=tcp"},
	} {
		c, err := Resolve("throughput", settings(t, ok...))
		if err != nil {
			t.Errorf("%v: %v", ok, err)
			continue
		}
		if got, want := c.DC.Datapath, strings.TrimPrefix(ok[0], "dc.datapath="); got != want {
			t.Errorf("%v: Datapath %q, want %q", ok, got, want)
		}
	}
	for _, tc := range []struct {
		scenario string
		set      []string
		want     string
	}{
		{"throughput", []string{"dc.datapath=gso"}, `dc.datapath: want nfqueue or batch (got "gso")`},
	} {
		_, err := Resolve(tc.scenario, settings(t, tc.set...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: err = %v, want it to contain %q", tc.scenario, tc.set, err, tc.want)
		}
	}
	if c, err := Resolve("fairness", settings(t, "dc.datapath=batch")); err != nil || c.DC.Datapath != DatapathBatch {
		t.Errorf("fairness with dc.datapath=batch: %q, %v", c.DC.Datapath, err)
	}
	if c, err := Resolve("throughput", nil); err != nil || c.DC.Datapath != DatapathNFQueue {
		t.Errorf("default dc.datapath = %q (%v), want %q", c.DC.Datapath, err, DatapathNFQueue)
	}
}
