package config

import (
	"slices"
	"strings"
	"testing"
)

// TestRTCPUs: run.rt_cpus takes a kernel CPU list, keeps it sorted and
// distinct, writes it back with ranges, names the key and the value it
// cannot read.
func TestRTCPUs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		back string
	}{
		{"none", nil, "none"},
		{"1", []int{1}, "1"},
		{"3,1-2", []int{1, 2, 3}, "1-3"},
		{"0, 2,2,5-6", []int{0, 2, 5, 6}, "0,2,5-6"},
	} {
		cfg, err := Resolve("throughput", settings(t, "run.rt_cpus="+c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if !slices.Equal(cfg.RTCPUs, c.want) || FormatCPUs(cfg.RTCPUs) != c.back {
			t.Errorf("%s: %v, written %q; want %v, %q", c.in, cfg.RTCPUs, FormatCPUs(cfg.RTCPUs), c.want, c.back)
		}
	}
	for _, bad := range [][]string{{"run.rt_cpus=x"}, {"run.rt_cpus=-1"}, {"run.rt_cpus=2-1"}, {"run.rt_cpus=1,"},
		{"run.rt_cpus=1024"}, {"run.rt_cpus=1-"}} {
		_, err := Resolve("throughput", settings(t, bad...))
		if err == nil || !strings.Contains(err.Error(), "run.rt_cpus") {
			t.Errorf("%q: %v, want an error naming run.rt_cpus", bad, err)
		}
	}
	if _, err := Resolve("throughput", settings(t, "dc.enabled=false", "flows.0.path=link1", "run.rt_cpus=1")); err != nil {
		t.Errorf("run.rt_cpus without DC: %v", err)
	}
}

// FuzzParseCPUs: whatever ParseCPUs accepts, FormatCPUs writes back to a
// list that reads the same.
func FuzzParseCPUs(f *testing.F) {
	for _, s := range []string{"none", "1", "0,2-3", "5-5", " 7 ,1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUs(s)
		if err != nil {
			return
		}
		again, err := ParseCPUs(FormatCPUs(cpus))
		if err != nil || !slices.Equal(again, cpus) {
			t.Fatalf("%q: %v written %q read %v, %v", s, cpus, FormatCPUs(cpus), again, err)
		}
	})
}
