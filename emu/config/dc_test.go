package config

import (
	"strings"
	"testing"
)

// TestDatapathRetired: dc.datapath is no key of the listing; batch, what
// every run does, is taken from configurations written before, and
// nfqueue (or anything else) is refused with what replaced it, naming the
// key.
func TestDatapathRetired(t *testing.T) {
	for _, p := range Params(&Config{}) {
		if strings.HasPrefix(p.Key, "dc.datapath") || strings.Contains(p.Doc, "nfqueue") {
			t.Errorf("key %s (%s) lists the NFQUEUE PDCP path", p.Key, p.Doc)
		}
	}
	base, err := Resolve("throughput", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ok := range [][]string{
		{"dc.datapath=batch"},
		{"dc.datapath=batch", "dc.uplink=split"},
		{"dc.datapath=batch", "flows.count=2", "flows.1.path=mptcp", "flows.1.proto=tcp"},
	} {
		c, err := Resolve("throughput", settings(t, ok...))
		if err != nil {
			t.Errorf("%v: %v", ok, err)
			continue
		}
		if len(ok) == 1 && Values(&c)["dc.enabled"] != Values(&base)["dc.enabled"] {
			t.Errorf("%v changed the configuration", ok)
		}
	}
	for _, v := range []string{"nfqueue", "gso", ""} {
		_, err := Resolve("throughput", settings(t, "dc.datapath="+v))
		if err == nil || !strings.Contains(err.Error(), "dc.datapath="+v+": the NFQUEUE PDCP proxies were removed") {
			t.Errorf("dc.datapath=%s: err = %v, want it refused, naming the key and what replaced the path", v, err)
		}
	}
}
