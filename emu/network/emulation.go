package network

import (
	"errors"
	"io"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/runstate"
	"github.com/dc-emu/emu/topo"
)

// Emulation is a running emulated network: the topology of a configuration
// with its links shaped, its delay lines and PDCP proxies running and its
// traces replaying. `emu up` keeps one until Ctrl-C; `emu run` runs flows
// over one. It runs on Linux only.
type Emulation struct {
	Config config.Config
	ID     string
	Net    *topo.Net
	// Epoch is when trace replay started; time series count from it.
	Epoch time.Time
	// Backends says which mechanism emulates what (recorded in results).
	Backends map[string]string

	// Warnings are configuration warnings recorded in results.
	Warnings []string

	// set is Config compiled into the components' settings.
	set compiled

	machinery
}

// ErrUnsupported is what Start returns off Linux: the emulator needs
// network namespaces, netlink and NFQUEUE. Configuration, traces and
// analysis work everywhere.
var ErrUnsupported = errors.New("emu emulates networks only on Linux (network namespaces, netlink, NFQUEUE); config, trace and analyze work here")

// Options tune Start.
type Options struct {
	// ID is the run id (namespace names); "" picks a new one.
	ID string
	// Command is recorded in the run's state file (up, run, …).
	Command string
	// Log receives warnings (e.g. a PDCP window that can overflow).
	Log io.Writer
	// ForceDelayLine installs the delay lines even on links with no delay,
	// jitter or loss, to measure their own overhead.
	ForceDelayLine bool
	// ExtraClients are paths to build a client for besides the flows'
	// (emu calibrate --jobs probes an idle link from one).
	ExtraClients []string
}

// TopologyOf is the topology a configuration needs: a client for every
// path its flows use (all three in the fairness scenario), and for the
// extra paths.
func TopologyOf(cfg config.Config, id string, extra ...string) topo.Spec {
	paths := []string{}
	seen := map[string]bool{}
	for _, f := range cfg.Flows {
		if !seen[f.Path] {
			seen[f.Path] = true
			paths = append(paths, f.Path)
		}
	}
	for _, p := range extra {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	if cfg.Scenario == "fairness" {
		for _, p := range []string{config.PathDC, config.PathLink1, config.PathLink2} {
			if !seen[p] {
				paths = append(paths, p)
			}
		}
	}
	uplink := cfg.DC.Uplink
	if uplink == "split" {
		uplink = config.PathLink1
	}
	o := topo.DCOptions{Paths: paths, Uplink: uplink, TCPBufferMax: cfg.TCPBufferMax}
	if cfg.DC.Enabled {
		o.LinkMTU = topo.LinkMTUUDP
	}
	return topo.DC(id, o)
}

func nodeInfos(s topo.Spec) []runstate.NodeInfo {
	var out []runstate.NodeInfo
	for _, n := range s.Nodes {
		ni := runstate.NodeInfo{Name: n.Name, Namespace: topo.NamespaceName(s.RunID, n.Name), Role: string(n.Role), Path: n.Path}
		for _, a := range s.Addrs(n.Name) {
			ni.Addrs = append(ni.Addrs, a.String())
		}
		out = append(out, ni)
	}
	return out
}
