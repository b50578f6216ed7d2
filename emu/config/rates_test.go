package config

import (
	"strings"
	"testing"
)

// TestExplicitRateWinsOverTheDefaultTrace: a rate set on a direction the
// default trace drives makes that link constant-rate, whatever the order of
// the settings; a direction the trace does not drive just takes the rate.
func TestExplicitRateWinsOverTheDefaultTrace(t *testing.T) {
	cases := []struct {
		scenario string
		sets     []string
		traces   [2]string // link1, link2 after resolving
		rates    [2]float64
	}{
		{"throughput", []string{"link1.down.rate=30mbit"}, [2]string{"", DefaultTrace}, [2]float64{30e6, 20e6}},
		{"fairness", []string{"link1.down.rate=20mbit"}, [2]string{"", DefaultTrace}, [2]float64{20e6, 20e6}},
		{"throughput", []string{"link1.rate=30mbit"}, [2]string{"", DefaultTrace}, [2]float64{30e6, 20e6}},
		{"throughput", []string{"link.rate=12mbit"}, [2]string{"", ""}, [2]float64{12e6, 12e6}},
		{"throughput", []string{"link.down.rate=12mbit"}, [2]string{"", ""}, [2]float64{12e6, 12e6}},
		{"throughput", []string{"link.bw_ratio=3:1"}, [2]string{"", ""}, [2]float64{30e6, 10e6}},
		// The uplink follows no trace without trace.up: its rate is just set.
		{"throughput", []string{"link2.up.rate=1mbit"}, [2]string{DefaultTrace, DefaultTrace}, [2]float64{20e6, 20e6}},
		{"throughput", []string{"link2.up.rate=1mbit", "trace.up=true"}, [2]string{DefaultTrace, ""}, [2]float64{20e6, 20e6}},
		{"throughput", []string{"trace.up=true", "link2.up.rate=1mbit"}, [2]string{DefaultTrace, ""}, [2]float64{20e6, 20e6}},
		// An explicit trace for the other link does not compete.
		{"throughput", []string{"link2.trace=StaticA", "link1.down.rate=7mbit"}, [2]string{"", "StaticA"}, [2]float64{7e6, 20e6}},
	}
	for _, tc := range cases {
		c, err := Resolve(tc.scenario, settings(t, tc.sets...))
		if err != nil {
			t.Errorf("%v: %v", tc.sets, err)
			continue
		}
		for i := range 2 {
			if c.Links[i].Trace != tc.traces[i] || c.Links[i].Down.Rate != tc.rates[i] {
				t.Errorf("%v: link%d trace %q down rate %v, want %q and %v", tc.sets, i+1, c.Links[i].Trace, c.Links[i].Down.Rate, tc.traces[i], tc.rates[i])
			}
		}
	}
}

// TestExplicitTraceAndRateConflict: a trace and a rate both given for one
// direction is an error naming both settings, in either order.
func TestExplicitTraceAndRateConflict(t *testing.T) {
	cases := []struct {
		sets []string
		want []string
	}{
		{[]string{"link1.trace=StaticA", "link1.down.rate=20mbit"}, []string{"link1.down.rate=20mbit", "link1.trace=StaticA"}},
		{[]string{"link1.down.rate=20mbit", "link1.trace=StaticA"}, []string{"link1.down.rate=20mbit", "link1.trace=StaticA"}},
		{[]string{"link.trace=StaticA", "link.bw_ratio=2:1"}, []string{"link.bw_ratio=2:1", "link.trace=StaticA"}},
		{[]string{"link.trace=StaticA", "link2.rate=5mbit"}, []string{"link2.rate=5mbit", "link.trace=StaticA"}},
		{[]string{"link1.trace=StaticA", "trace.up=true", "link1.up.rate=5mbit"}, []string{"link1.up.rate=5mbit", "link1.trace=StaticA"}},
	}
	for _, tc := range cases {
		_, err := Resolve("throughput", settings(t, tc.sets...))
		if err == nil {
			t.Errorf("%v: accepted", tc.sets)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not name %s", tc.sets, err, w)
			}
		}
	}
	// A trace given for a direction it does not drive is no conflict.
	if _, err := Resolve("throughput", settings(t, "link1.trace=StaticA", "link1.up.rate=5mbit")); err != nil {
		t.Errorf("uplink rate beside a downlink trace: %v", err)
	}
}

// TestRateFromTrace: a traced direction's rate reads "trace", and that value
// set again keeps it on the trace; on a constant-rate direction it is an
// error.
func TestRateFromTrace(t *testing.T) {
	c, err := Resolve("throughput", nil)
	if err != nil {
		t.Fatal(err)
	}
	v := Values(&c)
	if v["link1.down.rate"] != RateFromTrace || v["link1.up.rate"] != "20mbit" {
		t.Errorf("link1 rates read %q down, %q up", v["link1.down.rate"], v["link1.up.rate"])
	}
	c, err = Resolve("throughput", settings(t, "link1.trace=StaticA", "link1.down.rate=trace"))
	if err != nil || c.Links[0].Trace != "StaticA" {
		t.Errorf("link1.down.rate=trace beside its trace: %v, trace %q", err, c.Links[0].Trace)
	}
	for _, sets := range [][]string{{"link.trace=none", "link1.down.rate=trace"}, {"link1.up.rate=trace"}} {
		if _, err := Resolve("throughput", settings(t, sets...)); err == nil || !strings.Contains(err.Error(), "does not follow a trace") {
			t.Errorf("%v: %v", sets, err)
		}
	}
}
