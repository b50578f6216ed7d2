package emu

import (
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/network"
)

func TestPcapTargets(t *testing.T) {
	cfg, err := config.Resolve("fairness", nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := network.TopologyOf(cfg, "t1")
	got, err := pcapTargets(spec, config.Pcap{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range got {
		names = append(names, f.Node+":"+f.Iface)
	}
	want := "srv:gws gws:l1 gwc:l1 gws:l2 gwc:l2 cli:gwc cli1:gwc cli2:gwc"
	if strings.Join(names, " ") != want {
		t.Errorf("run.pcap=true captures %s, want %s", strings.Join(names, " "), want)
	}
	if got, err := pcapTargets(spec, config.Pcap{}); err != nil || got != nil {
		t.Errorf("off: %v %v", got, err)
	}
	list := config.Pcap{Ifaces: []config.PcapIface{{Node: "gws", Iface: "srv"}, {Node: "cli1", Iface: "gwc"}}}
	if got, err := pcapTargets(spec, list); err != nil || len(got) != 2 {
		t.Errorf("list: %v %v", got, err)
	}
	_, err = pcapTargets(spec, config.Pcap{Ifaces: []config.PcapIface{{Node: "srv", Iface: "eth0"}}})
	if err == nil || !strings.Contains(err.Error(), "run.pcap") || !strings.Contains(err.Error(), "srv:eth0") {
		t.Errorf("unknown interface: %v", err)
	}
	// The throughput topology has no cli1.
	cfg, _ = config.Resolve("throughput", nil)
	cfg.Observe.Pcap = list
	if err := checkPcap(cfg); err == nil {
		t.Error("cli1:gwc accepted in a topology without cli1")
	}
}
