package emu

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/topo"
)

// pcapTargets resolves run.pcap against a topology: true means both ends
// of each radio link (gws and gwc), the server's veth end and each
// client's; a list names node:iface pairs, each of which must exist.
func pcapTargets(spec topo.Spec, p config.Pcap) ([]config.PcapIface, error) {
	if !p.On() {
		return nil, nil
	}
	var all []config.PcapIface
	for _, l := range spec.Links {
		for _, e := range []topo.End{l.A, l.B} {
			all = append(all, config.PcapIface{Node: e.Node, Iface: e.Iface})
		}
	}
	if !p.All {
		for _, f := range p.Ifaces {
			if !slices.Contains(all, f) {
				names := make([]string, len(all))
				for i, a := range all {
					names[i] = a.Node + ":" + a.Iface
				}
				return nil, fmt.Errorf("run.pcap: this topology has no interface %s:%s (it has %s)", f.Node, f.Iface, strings.Join(names, ", "))
			}
		}
		return p.Ifaces, nil
	}
	var out []config.PcapIface
	for _, l := range spec.Links {
		switch {
		case l.A.Node == "gws" && l.B.Node == "gwc": // a radio link: both ends
			out = append(out, config.PcapIface{Node: l.A.Node, Iface: l.A.Iface}, config.PcapIface{Node: l.B.Node, Iface: l.B.Iface})
		case l.A.Node == "srv":
			out = append(out, config.PcapIface{Node: l.A.Node, Iface: l.A.Iface})
		case l.B.Node == "srv":
			out = append(out, config.PcapIface{Node: l.B.Node, Iface: l.B.Iface})
		default: // gwc ─ client: the client's end
			if n, ok := spec.Node(l.B.Node); ok && n.Role == topo.RoleClient {
				out = append(out, config.PcapIface{Node: l.B.Node, Iface: l.B.Iface})
			}
		}
	}
	return out, nil
}

// checkPcap fails a run whose run.pcap names an interface its topology
// lacks, before anything is built.
func checkPcap(cfg config.Config) error {
	_, err := pcapTargets(network.TopologyOf(cfg, "check"), cfg.Observe.Pcap)
	return err
}
