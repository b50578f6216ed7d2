package config

import (
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
)

func TestObserveKeys(t *testing.T) {
	c, err := Resolve("throughput", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Observe.TCPInfoInterval != 10*time.Millisecond || c.Observe.Pcap.On() || c.Observe.PcapSnaplen != 0 {
		t.Errorf("defaults: %+v, want 10ms, no capture, whole packets", c.Observe)
	}
	v := Values(&c)
	if v["run.tcpinfo_interval"] != "10ms" || v["run.pcap"] != "false" || v["run.pcap_snaplen"] != "0" {
		t.Errorf("values: %q %q %q", v["run.tcpinfo_interval"], v["run.pcap"], v["run.pcap_snaplen"])
	}
	c, err = Resolve("throughput", settings(t, "run.tcpinfo_interval=2ms", "run.pcap=true", "run.pcap_snaplen=128"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Observe.TCPInfoInterval != 2*time.Millisecond || !c.Observe.Pcap.All || c.Observe.PcapSnaplen != 128 {
		t.Errorf("set: %+v", c.Observe)
	}
	c, err = Resolve("throughput", settings(t, "run.pcap=srv:gws, gwc:l1"))
	if err != nil {
		t.Fatal(err)
	}
	want := []PcapIface{{"srv", "gws"}, {"gwc", "l1"}}
	if len(c.Observe.Pcap.Ifaces) != 2 || c.Observe.Pcap.Ifaces[0] != want[0] || c.Observe.Pcap.Ifaces[1] != want[1] {
		t.Errorf("list: %+v", c.Observe.Pcap)
	}
	if got := Values(&c)["run.pcap"]; got != "srv:gws,gwc:l1" {
		t.Errorf("list prints as %q", got)
	}
	// What a value prints as reads back as the same value.
	back, err := ParsePcap(c.Observe.Pcap.String())
	if err != nil || back.String() != c.Observe.Pcap.String() {
		t.Errorf("round trip: %v %v", back, err)
	}
}

func TestObserveErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ setting, want string }{
		{"run.tcpinfo_interval=0s", "run.tcpinfo_interval"},
		{"run.tcpinfo_interval=100us", "run.tcpinfo_interval"},
		{"run.tcpinfo_interval=fast", "run.tcpinfo_interval"},
		{"run.pcap=srv", "run.pcap"},
		{"run.pcap=srv:gws,srv:gws", "run.pcap"},
		{"run.pcap=SRV:gws", "run.pcap"},
		{"run.pcap_snaplen=-1", "run.pcap_snaplen"},
		{"run.pcap_snaplen=300000", "run.pcap_snaplen"},
		{"run.pcap_snaplen=big", "run.pcap_snaplen"},
	} {
		_, err := Resolve("throughput", settings(t, tc.setting))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %s", tc.setting, err, tc.want)
		}
	}
}

func FuzzParsePcap(f *testing.F) {
	emutest.AddSeeds[string](f, "true", "off", "", "srv:gws", "gws:l1,gwc:l1", "a:b,", ":")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePcap(s)
		if err != nil {
			return
		}
		back, err := ParsePcap(p.String())
		if err != nil || back.String() != p.String() {
			t.Fatalf("%q → %q → %q, %v", s, p.String(), back.String(), err)
		}
	})
}
