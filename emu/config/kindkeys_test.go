package config

import (
	"strings"
	"testing"
)

// TestKindKeysNotIgnored: a key that only other kinds of flow read is
// refused, naming the key as given, its kinds and the flow; a shorthand
// passes while some flow reads it; a bulk size and an objects flow's one
// object of that size say the same thing and pass.
func TestKindKeysNotIgnored(t *testing.T) {
	for _, c := range []struct {
		set  []string
		want string // "" = accepted
	}{
		{[]string{"flow.kind=objects", "flow.objects=1MB", "flow.size=10MB"},
			"flow.size=10MB: applies to bulk flows, and flow 0 is an objects flow: the setting would be ignored (an objects flow's sizes are its objects key"},
		{[]string{"flows.0.objects=500kB"}, "flows.0.objects=500kB: applies to objects flows, and flow 0 is a bulk flow"},
		{[]string{"flow.request=1000"}, "flow.request=1000: applies to rr flows, and flow 0 is a bulk flow"},
		{[]string{"flow.kind=rr", "flow.packet=200"}, "flow.packet=200: applies to cbr flows, and flow 0 is an rr flow"},
		{[]string{"flows.count=2", "flow.kind=objects", "flow.objects=1MB", "flow.arrivals=seq", "flow.count=3", "flows.1.kind=bulk", "flows.1.reuse=false"},
			"flows.1.reuse=false: applies to rr, objects flows, and flow 1 is a bulk flow"},
		{[]string{"flows.count=2", "flow.kind=rr", "flow.size=5MB"}, "flow.size=5MB: applies to bulk flows, and no flow is one: the setting would be ignored"},
		// Accepted.
		{[]string{"flows.count=2", "flows.1.kind=rr", "flows.1.count=5", "flow.size=5MB", "flow.request=200"}, ""},
		{[]string{"flow.kind=objects", "flow.objects=1MB", "flow.size=100MB", "flow.packet=160"}, ""}, // the defaults
		{[]string{"flow.kind=objects", "flow.objects=1MB", "flow.size=1MB"}, ""},
		{[]string{"flow.kind=bulk", "flow.objects=10MB", "flow.size=10MB"}, ""},
		{[]string{"flow.kind=objects", "flow.objects=fixed:2MB", "flow.size=2MB", "flow.count=4"}, ""},
		{[]string{"flow.proto=udp", "flow.kind=cbr", "flow.rate=64kbit", "flow.duration=5s"}, ""},
	} {
		_, err := Resolve("throughput", settings(t, c.set...))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.set, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: error %v, want %q", c.set, err, c.want)
		}
	}
}
