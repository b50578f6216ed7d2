package config

import (
	"strings"
	"testing"
)

func TestMPTCPKeys(t *testing.T) {
	c, err := Resolve("throughput", settings(t, "flows.0.path=mptcp", "flow.proto=tcp", "mptcp.flags=fullmesh",
		"mptcp.backup=true", "mptcp.subflows=4", "mptcp.add_addr_accepted=0", "mptcp.scheduler=default"))
	if err != nil {
		t.Fatal(err)
	}
	want := MPTCP{Flags: MPTCPFullmesh, Backup: true, Subflows: 4, AddAddrAccepted: 0, Scheduler: "default"}
	if c.MPTCP != want || !c.UsesMPTCP() || c.Flows[0].ServerImpl != "go" {
		t.Errorf("MPTCP = %+v, flows %+v", c.MPTCP, c.Flows)
	}
	d, err := Resolve("throughput", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.MPTCP != DefaultMPTCP() || d.UsesMPTCP() {
		t.Errorf("default MPTCP = %+v (uses: %v)", d.MPTCP, d.UsesMPTCP())
	}
	if v := Values(&c); v["mptcp.flags"] != "fullmesh" || v["mptcp.backup"] != "true" || v["mptcp.subflows"] != "4" {
		t.Errorf("values: %v", v)
	}
}

func TestMPTCPBadInputNamesKey(t *testing.T) {
	cases := []struct {
		sets []string
		want string
	}{
		{[]string{"flows.0.path=mptcp"}, `flows.0.path: mptcp is Multipath TCP: it needs flows.0.proto=tcp (got "quic")`},
		{[]string{"flows.0.path=mptcp", "flow.proto=tcp", "mptcp.subflows=0"}, "mptcp.subflows: an MPTCP flow needs at least 1"},
		{[]string{"mptcp.subflows=9"}, "mptcp.subflows: want 0..8"},
		{[]string{"mptcp.add_addr_accepted=-1"}, "mptcp.add_addr_accepted: want 0..8"},
		{[]string{"mptcp.flags=signal"}, `mptcp.flags: want subflow or fullmesh (got "signal")`},
		{[]string{"mptcp.scheduler=Bad Name"}, `mptcp.scheduler: "Bad Name" is not a scheduler name`},
		{[]string{"mptcp.backup=maybe"}, `mptcp.backup=maybe: "maybe" is not a boolean`},
		{[]string{"flows.0.path=wifi"}, `flows.0.path: want dc, link1, link2 or mptcp (got "wifi")`},
	}
	for _, tc := range cases {
		_, err := Resolve("throughput", settings(t, tc.sets...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want it to contain %q", tc.sets, err, tc.want)
		}
	}
}
