package config

import (
	"strings"
	"testing"
	"time"
)

func settings(t *testing.T, kv ...string) []Setting {
	t.Helper()
	out, err := ParseSettings(kv)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestResolveSetsWhatKeysSay(t *testing.T) {
	c, err := Resolve("throughput", settings(t,
		"link1.down.delay=30ms", // narrower wins whatever the order
		"link.delay=5ms",
		"link2.delay=7ms",
		"link1.loss=0.5%",
		"link2.up.rate=1.5gbit",
		"link1.jitter=2ms",
		"link2.queue=50ms",
		"dc.batch=150",
		"flow.proto=tcp",
		"flows.0.cc=bbr",
	))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"link1.down.delay", c.Links[0].Down.Delay, 30 * time.Millisecond},
		{"link1.up.delay", c.Links[0].Up.Delay, 5 * time.Millisecond},
		{"link2.down.delay", c.Links[1].Down.Delay, 7 * time.Millisecond},
		{"link1.up.loss", c.Links[0].Up.Loss, 0.005},
		{"link2.up.rate", c.Links[1].Up.Rate, 1.5e9},
		{"link2.down.rate", c.Links[1].Down.Rate, 20e6},
		{"link1.down.jitter", c.Links[0].Down.Jitter, Jitter{Abs: 2 * time.Millisecond}},
		{"link2.down.jitter", c.Links[1].Down.Jitter, Jitter{CV: 0.1}},
		{"link2.up.queue", c.Links[1].Up.Queue, QueueLimit{Time: 50 * time.Millisecond}},
		{"dc.batch", c.DC.Sched.Batch, 150},
		{"flows.0.proto", c.Flows[0].Proto, "tcp"},
		{"flows.0.server_impl", c.Flows[0].ServerImpl, "go"},
		{"flows.0.cc", c.Flows[0].CC, "bbr"},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestDerivedRatios(t *testing.T) {
	c, err := Resolve("throughput", settings(t, "link.bw_ratio=3:1", "link.delay_ratio=1:3", "link.trace=none"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Links[0].Down.Rate != 30e6 || c.Links[1].Down.Rate != 10e6 {
		t.Errorf("bw_ratio 3:1 of 20 Mbit/s: got %v and %v", c.Links[0].Down.Rate, c.Links[1].Down.Rate)
	}
	if c.Links[0].Down.Delay != 5*time.Millisecond || c.Links[1].Down.Delay != 15*time.Millisecond {
		t.Errorf("delay_ratio 1:3 of 10+10 ms: got %v and %v", c.Links[0].Down.Delay, c.Links[1].Down.Delay)
	}
}

func TestFlowsExtendAndName(t *testing.T) {
	c, err := Resolve("throughput", settings(t, "flows.count=3", "flows.2.path=link1", "flows.1.proto=tcp"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range c.Flows {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "dc,dc-2,link1" {
		t.Errorf("flow names = %s", got)
	}
	c, err = Resolve("fairness", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Flows) != 3 || c.Flows[2].Path != PathLink2 || c.Flows[0].Duration != 180*time.Second {
		t.Errorf("fairness flows = %+v", c.Flows)
	}
}

func TestBadInputNamesKeyAndValue(t *testing.T) {
	cases := []struct {
		set, want string
	}{
		{"link1.rate=fast", `link1.rate=fast: "fast" is not a rate`},
		{"link1.loss=120%", `link1.loss=120%: "120%" is out of range`},
		{"link2.delay=-5ms", `link2.delay=-5ms: "-5ms": must not be negative`},
		{"link3.delay=5ms", `unknown key "link3.delay"`},
		{"dc.batchsize=5", `unknown key "dc.batchsize"`},
		{"dc.split=3:x", `dc.split=3:x: "3:x": "x" is not a non-negative decimal number`},
		{"dc.scheduler=magic", `dc.scheduler: unknown scheduler (want one of batch, duplicate, weighted, smallest-delay, active-standby, adaptive, credit) (got "magic")`},
		{"dc.batch=0", `dc.batch: must be at least 1 (got 0)`},
		{"dc.sn_bits=16", `dc.sn_bits: must be 12 or 18 (got 16)`},
		{"dc.active=link3", `dc.active=link3: want link1 or link2 (got "link3")`},
		{"flows.x.size=1MB", `flows.x.size: flow index "x"`},
		{"flow.proto=sctp", `flows.0.proto: want quic, tcp or udp (got "sctp")`},
		{"link.queue=0", `link.queue=0: "0" is not a queue limit`},
	}
	for _, tc := range cases {
		_, err := Resolve("throughput", settings(t, tc.set))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.set, err, tc.want)
		}
	}
	if _, err := ParseSetting("novalue"); err == nil {
		t.Error("ParseSetting accepted a setting without =")
	}
	if _, err := Resolve("nosuch", nil); err == nil || !strings.Contains(err.Error(), `unknown scenario "nosuch"`) {
		t.Errorf("unknown scenario: %v", err)
	}
}

func TestValuesRoundTrip(t *testing.T) {
	c, err := Resolve("fairness", settings(t, "link1.down.rate=12.5mbit", "link2.jitter=3ms", "flow.size=5MB"))
	if err != nil {
		t.Fatal(err)
	}
	var again []Setting
	for k, v := range Values(&c) {
		if k != "scenario" {
			again = append(again, Setting{k, v})
		}
	}
	c2, err := Resolve("fairness", again)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := Values(&c), Values(&c2); len(a) != len(b) {
		t.Fatalf("round trip changed the key set")
	} else {
		for k := range a {
			if a[k] != b[k] {
				t.Errorf("%s: %q became %q", k, a[k], b[k])
			}
		}
	}
}
