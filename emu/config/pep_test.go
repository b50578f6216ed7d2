package config

import (
	"strings"
	"testing"
)

func TestPEPKeys(t *testing.T) {
	c, err := Resolve("throughput", settings(t, "flows.0.path=link1", "flow.proto=tcp",
		"pep.enabled=true", "pep.cc=bbr", "pep.buffer=8MB", "pep.initcwnd=100"))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.PEP; !p.Enabled || p.CC != "bbr" || p.Buffer != 8e6 || p.InitCwnd != 100 {
		t.Errorf("pep: %+v", p)
	}
	if v := Values(&c); v["pep.enabled"] != "true" || v["pep.buffer"] != "8MB" {
		t.Errorf("values: pep.enabled %q, pep.buffer %q", v["pep.enabled"], v["pep.buffer"])
	}
	// QUIC flows beside a TCP one pass the PEP untouched: allowed.
	if _, err := Resolve("fairness", settings(t, "flows.1.proto=tcp", "pep.enabled=true")); err != nil {
		t.Errorf("fairness with a TCP flow on link1: %v", err)
	}
}

// TestPEPBadInputNamesKey: a PEP that no flow passes or that would break a
// flow is refused with the reason, and its settings while it is off.
func TestPEPBadInputNamesKey(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{[]string{"pep.enabled=true"}, "pep.enabled: no flow passes the PEP"},
		{[]string{"pep.enabled=true", "flows.0.path=link1"}, "pep.enabled: no flow passes the PEP"}, // QUIC only
		{[]string{"pep.enabled=true", "flow.proto=tcp"}, "pep.enabled: flows.0.path=dc: the PEP's own packets"},
		{[]string{"pep.enabled=true", "flow.proto=tcp", "flows.0.path=mptcp"}, "pep.enabled: flows.0.path=mptcp: a PEP splits single-path TCP"},
		{[]string{"pep.cc=bbr"}, "pep.cc: set while pep.enabled=false"},
		{[]string{"pep.initcwnd=20"}, "pep.initcwnd: set while pep.enabled=false"},
		{[]string{"pep.enabled=true", "flow.proto=tcp", "flows.0.path=link1", "pep.initcwnd=5000"}, "pep.initcwnd: want 0..1000"},
		{[]string{"pep.enabled=true", "flow.proto=tcp", "flows.0.path=link1", "pep.cc=B B R"}, `pep.cc: "B B R" is not a congestion control name`},
		{[]string{"pep.buffer=lots"}, "pep.buffer=lots"},
	} {
		_, err := Resolve("throughput", settings(t, tc.sets...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want it to contain %q", tc.sets, err, tc.want)
		}
	}
}
