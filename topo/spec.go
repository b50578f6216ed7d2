package topo

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
)

// Role is what a node does in the experiment.
type Role string

const (
	RoleServer  Role = "server"
	RoleGateway Role = "gateway"
	RoleClient  Role = "client"
)

// Spec describes a topology: nodes (one network namespace each) and links
// (veth pairs) between them.
type Spec struct {
	// RunID goes into every namespace name so two runs can coexist.
	RunID string
	Nodes []Node
	Links []Link
}

// Node is one network namespace.
type Node struct {
	// Name is the short name users type (srv, gws, gwc, cli, cli1, cli2).
	Name string
	Role Role
	// Path is the path a client's traffic takes: dc, link1 or link2.
	Path string
	// Forward enables IPv4 forwarding (gateways).
	Forward bool
	Routes  []Route
	Rules   []Rule
	// Sysctls are written in the namespace after the ones every node
	// gets (key, value; e.g. net.ipv4.tcp_wmem).
	Sysctls [][2]string
}

// Link is a veth pair between two nodes.
type Link struct {
	// Name identifies the link in shaping and results (link1, link2, srv, cli).
	Name string
	A, B End
	// MTU of both ends; 0 = 1500.
	MTU int
}

// End is one side of a link.
type End struct {
	Node  string
	Iface string
	Addrs []netip.Prefix
}

// Route is a route in a node's routing table.
type Route struct {
	Dst   netip.Prefix
	Via   netip.Addr // zero: directly connected on Dev
	Dev   string
	Table int // 0 = main
}

// Rule is a policy routing rule: packets with Mark (if non-zero) from From
// (if valid) look up Table.
type Rule struct {
	Priority int
	Mark     uint32
	From     netip.Prefix
	Table    int
}

// NamespaceName is the name of a node's namespace in /run/netns.
func NamespaceName(runID, node string) string { return "emu-" + runID + "-" + node }

var (
	runIDPattern    = regexp.MustCompile(`^[a-z0-9]{1,12}$`)
	nodeNamePattern = regexp.MustCompile(`^[a-z][a-z0-9]{0,7}$`)
	ifacePattern    = regexp.MustCompile(`^[a-z][a-z0-9]{0,14}$`)
)

// Validate reports every problem of the spec at once.
func (s Spec) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !runIDPattern.MatchString(s.RunID) {
		bad("run id %q: want 1-12 lower-case letters or digits", s.RunID)
	}
	nodes := map[string]bool{}
	for _, n := range s.Nodes {
		if !nodeNamePattern.MatchString(n.Name) {
			bad("node %q: want a lower-case name of up to 8 characters", n.Name)
		}
		if nodes[n.Name] {
			bad("node %q declared twice", n.Name)
		}
		nodes[n.Name] = true
		switch n.Role {
		case RoleServer, RoleGateway, RoleClient:
		default:
			bad("node %s: unknown role %q", n.Name, n.Role)
		}
	}
	ifaces := map[string]bool{}
	addrs := map[netip.Addr]string{}
	for _, l := range s.Links {
		if l.MTU != 0 && (l.MTU < 1280 || l.MTU > 65535) {
			bad("link %s: MTU %d out of range 1280..65535", l.Name, l.MTU)
		}
		for _, e := range []End{l.A, l.B} {
			if !nodes[e.Node] {
				bad("link %s: unknown node %q", l.Name, e.Node)
			}
			if !ifacePattern.MatchString(e.Iface) {
				bad("link %s: interface name %q invalid", l.Name, e.Iface)
			}
			key := e.Node + "/" + e.Iface
			if ifaces[key] {
				bad("link %s: interface %s used twice", l.Name, key)
			}
			ifaces[key] = true
			for _, a := range e.Addrs {
				if !a.IsValid() {
					bad("link %s: invalid address on %s", l.Name, key)
					continue
				}
				if other, dup := addrs[a.Addr()]; dup {
					bad("link %s: address %s on %s is also on %s", l.Name, a.Addr(), key, other)
				}
				addrs[a.Addr()] = key
			}
		}
	}
	for _, n := range s.Nodes {
		for _, r := range n.Routes {
			if !r.Dst.IsValid() {
				bad("node %s: route without destination", n.Name)
			}
			if r.Dev != "" && !ifaces[n.Name+"/"+r.Dev] {
				bad("node %s: route to %s via unknown interface %q", n.Name, r.Dst, r.Dev)
			}
		}
		for _, r := range n.Rules {
			if r.Table <= 0 || r.Table >= 250 {
				bad("node %s: rule to table %d: want 1..249", n.Name, r.Table)
			}
		}
	}
	return errors.Join(errs...)
}

// Node returns the node with a short name.
func (s Spec) Node(name string) (Node, bool) {
	for _, n := range s.Nodes {
		if n.Name == name {
			return n, true
		}
	}
	return Node{}, false
}

// Addrs returns every address of a node, interface by interface.
func (s Spec) Addrs(node string) []netip.Prefix {
	var out []netip.Prefix
	for _, l := range s.Links {
		if l.A.Node == node {
			out = append(out, l.A.Addrs...)
		}
		if l.B.Node == node {
			out = append(out, l.B.Addrs...)
		}
	}
	return out
}
