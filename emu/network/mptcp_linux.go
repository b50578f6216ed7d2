package network

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/internal/mptcp"
	"github.com/dc-emu/emu/topo"
)

// setupMPTCP configures Multipath TCP when a flow takes the MPTCP path:
// the packet scheduler of the server and the client, both path managers'
// limits, and the client's endpoint for its link2 address, so the kernel
// opens a second subflow over link2 once the first (from the link1
// address, by the main routing table) is up. Everything is made over
// generic netlink inside the run's namespaces and goes with them.
func (e *Emulation) setupMPTCP() error {
	if !e.Config.UsesMPTCP() {
		return nil
	}
	m := e.Config.MPTCP
	srv, err := e.Net.Node("srv")
	if err != nil {
		return err
	}
	cli, err := e.Net.Node(topo.ClientNode(topo.PathMPTCP))
	if err != nil {
		return err
	}
	k, err := mptcp.Probe(int(srv.NS))
	if err != nil {
		return err
	}
	if !k.Enabled {
		return fmt.Errorf("mptcp: net.mptcp.enabled is 0 in %s", srv.NSName)
	}
	if err := checkScheduler(m.Scheduler, k); err != nil {
		return err
	}
	flags := mptcp.FlagSubflow
	if m.Flags == config.MPTCPFullmesh {
		flags |= mptcp.FlagFullmesh
	}
	if m.Backup {
		flags |= mptcp.FlagBackup
	}
	limits := mptcp.Limits{Subflows: uint32(m.Subflows), AddAddrAccepted: uint32(m.AddAddrAccepted)}
	link2 := topo.ClientAddrs(topo.PathMPTCP)[1]
	for _, n := range []struct {
		node *topo.NodeNS
		eps  []mptcp.Endpoint
	}{
		{srv, nil},
		{cli, []mptcp.Endpoint{{Addr: link2, Flags: flags}}},
	} {
		if err := configurePM(n.node, m.Scheduler, len(k.Schedulers) > 0, limits, n.eps); err != nil {
			return err
		}
	}
	e.Backends["mptcp"] = fmt.Sprintf("in-kernel path manager, scheduler %s, link2 endpoint %s", m.Scheduler, flags)
	return nil
}

// checkScheduler fails for a scheduler the kernel does not offer, naming
// the key and what it does offer.
func checkScheduler(name string, k mptcp.Kernel) error {
	avail := k.Schedulers
	if len(avail) == 0 {
		avail = []string{"default"} // before Linux 6.6: the built-in scheduler only
	}
	if !slices.Contains(avail, name) {
		return fmt.Errorf("mptcp.scheduler=%s: this kernel offers %s (emu doctor lists them)", name, strings.Join(avail, ", "))
	}
	return nil
}

// configurePM sets one namespace's scheduler (when the kernel has the
// sysctl), limits and endpoints.
func configurePM(n *topo.NodeNS, scheduler string, setScheduler bool, l mptcp.Limits, eps []mptcp.Endpoint) error {
	if setScheduler {
		if err := mptcp.SetScheduler(int(n.NS), scheduler); err != nil {
			return fmt.Errorf("%s: %w", n.Name, err)
		}
	}
	pm, err := mptcp.OpenPM(int(n.NS))
	if err != nil {
		return fmt.Errorf("%s: %w", n.Name, err)
	}
	defer pm.Close()
	if err := pm.SetLimits(l); err != nil {
		return fmt.Errorf("%s: mptcp limits: %w", n.Name, err)
	}
	for _, ep := range eps {
		if _, err := pm.AddEndpoint(ep); err != nil {
			return fmt.Errorf("%s: mptcp endpoint %s: %w", n.Name, ep, err)
		}
	}
	return nil
}
