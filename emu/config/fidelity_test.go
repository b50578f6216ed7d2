package config

import (
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/fidelity"
)

func TestVerdictLimitsDefaultsAndKeys(t *testing.T) {
	c, err := Resolve("throughput", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Fidelity != fidelity.Defaults() {
		t.Errorf("default thresholds %+v, want fidelity.Defaults() %+v", c.Fidelity, fidelity.Defaults())
	}
	vals := Values(&c)
	for key, want := range map[string]string{
		"fidelity.late_frac": "5%", "fidelity.late_floor": "500µs", "fidelity.late_ceil": "1ms",
		"fidelity.late_max": "50ms", "fidelity.rate_tolerance": "3%", "fidelity.min_saturated": "1s",
		"fidelity.thread_wait": "20%", "fidelity.thread_mean_wait": "50µs", "fidelity.thread_cpu": "0.8",
		"fidelity.endpoint_cpu": "0.9", "fidelity.endpoint_wait": "85%", "fidelity.softirq_wait": "5ms", "fidelity.steal": "2%",
	} {
		if vals[key] != want {
			t.Errorf("%s = %q, want %q", key, vals[key], want)
		}
	}

	c, err = Resolve("throughput", settings(t, "fidelity.late_max=20ms", "fidelity.endpoint_cpu=1.5", "fidelity.steal=0.5%", "fidelity.late_frac=0.1"))
	if err != nil {
		t.Fatal(err)
	}
	th := c.Fidelity
	if th.LateMax != 20*time.Millisecond || th.EndpointCPU != 1.5 || th.Steal != 0.005 || th.LateFrac != 0.1 {
		t.Errorf("settings not applied: %+v", th)
	}
}

func TestVerdictLimitsValidationNamesTheKey(t *testing.T) {
	for _, tc := range []struct{ set, key string }{
		{"fidelity.late_max=0", "fidelity.late_max"},
		{"fidelity.late_frac=0%", "fidelity.late_frac"},
		{"fidelity.rate_tolerance=100%", "fidelity.rate_tolerance"},
		{"fidelity.thread_cpu=1.5", "fidelity.thread_cpu"},
		{"fidelity.endpoint_cpu=-1", "fidelity.endpoint_cpu"},
		{"fidelity.endpoint_wait=0%", "fidelity.endpoint_wait"},
		{"fidelity.late_floor=2ms", "fidelity.late_floor"}, // above late_ceil
	} {
		_, err := Resolve("throughput", settings(t, tc.set))
		if err == nil || !strings.Contains(err.Error(), tc.key+":") {
			t.Errorf("%s: error %v, want one naming %s", tc.set, err, tc.key)
		}
	}
	// A value the parser refuses names the key too.
	if _, err := Resolve("throughput", settings(t, "fidelity.steal=lots")); err == nil || !strings.Contains(err.Error(), "fidelity.steal=lots") {
		t.Errorf("unparsable steal: %v", err)
	}
}
