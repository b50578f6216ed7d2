package config

import (
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/pdcp"
)

// TestFCDefaults: flow control is off by default, with the parameters it
// takes when turned on, and FlowControl gives the zero pdcp configuration.
func TestFCDefaults(t *testing.T) {
	for _, scenario := range []string{"throughput", "fairness"} {
		c, err := Resolve(scenario, nil)
		if err != nil {
			t.Fatal(err)
		}
		v := Values(&c)
		for k, want := range map[string]string{
			"dc.fc": "off", "dc.fc.buffer": "50ms", "dc.fc.interval": "10ms", "dc.fc.delay": "0s", "dc.fc.full": "hold",
		} {
			if v[k] != want {
				t.Errorf("%s: %s = %q, want %q", scenario, k, v[k], want)
			}
		}
		if fc := c.FlowControl(); fc != (pdcp.FlowControlConfig{}) || fc.Enabled() {
			t.Errorf("%s: FlowControl() = %+v, want the zero value (off)", scenario, fc)
		}
	}
}

// TestFCKeysRoundTrip: each key prints back as it was given (a size as emu
// prints sizes), and the printed value sets the same again.
func TestFCKeysRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		set, key, want string
	}{
		{"dc.fc=ddds", "dc.fc", "ddds"},
		{"dc.fc.buffer=50ms", "dc.fc.buffer", "50ms"},
		{"dc.fc.buffer=120ms", "dc.fc.buffer", "120ms"},
		{"dc.fc.buffer=1.5s", "dc.fc.buffer", "1.5s"},
		{"dc.fc.buffer=262144", "dc.fc.buffer", "262144B"},
		{"dc.fc.buffer=256KB", "dc.fc.buffer", "256kB"},
		{"dc.fc.buffer=256KiB", "dc.fc.buffer", "262144B"},
		{"dc.fc.buffer=6MB", "dc.fc.buffer", "6MB"},
		{"dc.fc.buffer=1500B", "dc.fc.buffer", "1500B"},
		{"dc.fc.interval=20ms", "dc.fc.interval", "20ms"},
		{"dc.fc.delay=5ms", "dc.fc.delay", "5ms"},
		{"dc.fc.full=drop", "dc.fc.full", "drop"},
		{"dc.fc.full=hold", "dc.fc.full", "hold"},
	} {
		sets := []string{"dc.fc=ddds", tc.set}
		c, err := Resolve("throughput", settings(t, sets...))
		if err != nil {
			t.Errorf("%v: %v", sets, err)
			continue
		}
		got := Values(&c)[tc.key]
		if got != tc.want {
			t.Errorf("%s: %s = %q, want %q", tc.set, tc.key, got, tc.want)
		}
		again, err := Resolve("throughput", settings(t, "dc.fc=ddds", tc.key+"="+got))
		if err != nil {
			t.Errorf("%s=%s: %v", tc.key, got, err)
			continue
		}
		if again.FlowControl() != c.FlowControl() {
			t.Errorf("%s=%s: %+v, was %+v", tc.key, got, again.FlowControl(), c.FlowControl())
		}
	}
}

// TestFlowControl: with dc.fc=ddds FlowControl has every field set, the
// buffer in bytes or as a time as it was given.
func TestFlowControl(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want pdcp.FlowControlConfig
	}{
		{[]string{"dc.fc=ddds"}, pdcp.FlowControlConfig{BufferTime: 50 * time.Millisecond,
			Interval: 10 * time.Millisecond, WhenFull: "hold"}},
		{[]string{"dc.fc=ddds", "dc.fc.buffer=256kB", "dc.fc.interval=20ms", "dc.fc.delay=3ms", "dc.fc.full=drop"},
			pdcp.FlowControlConfig{Buffer: 256000, Interval: 20 * time.Millisecond, Delay: 3 * time.Millisecond, WhenFull: "drop"}},
		{[]string{"dc.fc=ddds", "dc.fc.buffer=262144", "dc.scheduler=credit"},
			pdcp.FlowControlConfig{Buffer: 262144, Interval: 10 * time.Millisecond, WhenFull: "hold"}},
		{[]string{"dc.fc=ddds", "dc.fc.buffer=1s", "dc.uplink=split"},
			pdcp.FlowControlConfig{BufferTime: time.Second, Interval: 10 * time.Millisecond, WhenFull: "hold"}},
		{[]string{"dc.fc=off", "dc.fc.buffer=50ms", "dc.fc.full=hold"}, pdcp.FlowControlConfig{}},
	} {
		c, err := Resolve("throughput", settings(t, tc.sets...))
		if err != nil {
			t.Errorf("%v: %v", tc.sets, err)
			continue
		}
		got := c.FlowControl()
		if got != tc.want {
			t.Errorf("%v: FlowControl() = %+v, want %+v", tc.sets, got, tc.want)
		}
		if err := got.Validate(); got.Enabled() && err != nil {
			t.Errorf("%v: pdcp refuses %+v: %v", tc.sets, got, err)
		}
	}
	// The fairness scenario's flows (dc, link1, link2) are not steered.
	if _, err := Resolve("fairness", settings(t, "dc.fc=ddds", "dc.scheduler=credit")); err != nil {
		t.Errorf("fairness with credit: %v", err)
	}
}

// TestFCBadInputNamesKey: every refusal names its key.
func TestFCBadInputNamesKey(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{[]string{"dc.fc=on"}, `dc.fc: want off or ddds (got "on")`},
		{[]string{"dc.fc=DDDS"}, `dc.fc: want off or ddds (got "DDDS")`},
		// pdcp's ranges, under the key of the field.
		{[]string{"dc.fc=ddds", "dc.fc.buffer=1kB"}, "dc.fc.buffer: must be 0 (off) or 1500 to 4294967295 bytes (got 1000)"},
		{[]string{"dc.fc=ddds", "dc.fc.buffer=5GB"}, "dc.fc.buffer: must be 0 (off) or 1500 to 4294967295 bytes (got 5000000000)"},
		{[]string{"dc.fc=ddds", "dc.fc.buffer=4s"}, "dc.fc.buffer: must be 0 (Buffer gives it) to 3s (got 4s)"},
		{[]string{"dc.fc=ddds", "dc.fc.interval=0"}, "dc.fc.interval: must be at least 1ms (got 0s)"},
		{[]string{"dc.fc=ddds", "dc.fc.interval=500us"}, "dc.fc.interval: must be at least 1ms (got 500µs)"},
		{[]string{"dc.fc=ddds", "dc.fc.full=queue"}, `dc.fc.full: want one of hold, drop (got "queue")`},
		// What the keys parse.
		{[]string{"dc.fc=ddds", "dc.fc.buffer=lots"}, `dc.fc.buffer=lots: "lots" is not a buffer (want bytes, e.g. 256kB, or a time at the leg's rate, e.g. 50ms)`},
		{[]string{"dc.fc=ddds", "dc.fc.buffer=0"}, `dc.fc.buffer=0: "0": must be above 0`},
		{[]string{"dc.fc=ddds", "dc.fc.buffer=-5ms"}, `dc.fc.buffer=-5ms: "-5ms": must be above 0`},
		{[]string{"dc.fc=ddds", "dc.fc.delay=-1ms"}, `dc.fc.delay=-1ms: "-1ms": must not be negative`},
		// Settings flow control would ignore.
		{[]string{"dc.fc.buffer=256kB"}, "dc.fc.buffer: 256kB set while dc.fc=off: flow control does not run; set dc.fc=ddds"},
		{[]string{"dc.fc.buffer=20ms"}, "dc.fc.buffer: 20ms set while dc.fc=off: flow control does not run; set dc.fc=ddds"},
		{[]string{"dc.fc.interval=20ms"}, "dc.fc.interval: 20ms set while dc.fc=off: flow control does not run; set dc.fc=ddds"},
		{[]string{"dc.fc.delay=5ms"}, "dc.fc.delay: 5ms set while dc.fc=off: flow control does not run; set dc.fc=ddds"},
		{[]string{"dc.fc=off", "dc.fc.full=drop"}, "dc.fc.full: drop set while dc.fc=off: flow control does not run; set dc.fc=ddds"},
		// The credit scheduler needs flow control.
		{[]string{"dc.scheduler=credit"}, "dc.scheduler: credit splits by flow-control credit and needs dc.fc=ddds (dc.fc is off)"},
		{[]string{"flow.scheduler=credit"}, "flows.0.scheduler: credit splits by flow-control credit and needs dc.fc=ddds (dc.fc is off)"},
		// What flow control does not go with.
		{[]string{"dc.fc=ddds", "dc.enabled=false", "flow.path=link1"}, "dc.fc: ddds with dc.enabled=false: flow control runs in the PDCP proxies, which do not run"},
		{[]string{"dc.fc=ddds", "flow.scheduler=batch"}, "dc.fc: flow control keeps one account per PDCP entity; per-flow entities are not supported with it yet (flow 0 has a scheduler of its own: flows.N.scheduler, batch, split or active)"},
		{[]string{"dc.fc=ddds", "flows.count=3", "flows.1.split=2:1", "flows.2.active=link2"}, "dc.fc: flow control keeps one account per PDCP entity; per-flow entities are not supported with it yet (flows 1, 2 have schedulers of their own"},
		{[]string{"dc.fc=ddds", "flow.batch=20"}, "dc.fc: flow control keeps one account per PDCP entity"},
		{[]string{"dc.fc=ddds", "flow.scheduler=credit"}, "dc.fc: flow control keeps one account per PDCP entity"},
	} {
		_, err := Resolve("throughput", settings(t, tc.sets...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want it to contain %q", tc.sets, err, tc.want)
		}
	}
}

// TestFCKeysListed: the keys are listed after the dc.* keys, and their
// docs say what they need (dc.fc=ddds) and that flow control is the
// downlink's.
func TestFCKeysListed(t *testing.T) {
	c, err := DefaultConfig("throughput")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	docs := map[string]string{}
	for _, p := range Params(&c) {
		if strings.HasPrefix(p.Key, "dc.") {
			keys = append(keys, p.Key)
			docs[p.Key] = p.Doc
		}
	}
	got := strings.Join(keys, " ")
	if !strings.HasSuffix(got, "dc.uplink dc.fc dc.fc.buffer dc.fc.interval dc.fc.delay dc.fc.full") {
		t.Errorf("dc keys: %s", got)
	}
	if !strings.Contains(docs["dc.fc"], "downlink") || !strings.Contains(docs["dc.fc"], "ddds") {
		t.Errorf("dc.fc: %s", docs["dc.fc"])
	}
	for _, k := range []string{"dc.fc.buffer", "dc.fc.interval", "dc.fc.delay", "dc.fc.full"} {
		if !strings.HasPrefix(docs[k], "dc.fc=ddds: ") {
			t.Errorf("%s: %s", k, docs[k])
		}
	}
	if !strings.Contains(docs["dc.scheduler"], ", credit") {
		t.Errorf("dc.scheduler: %s", docs["dc.scheduler"])
	}
}
