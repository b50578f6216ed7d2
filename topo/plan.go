package topo

import (
	"fmt"
	"net/netip"
	"slices"
)

// OpKind is the kind of one kernel operation of a plan.
type OpKind int

const (
	OpNamespace OpKind = iota // create the node's namespace
	OpSysctl                  // write a sysctl inside the namespace
	OpLoopback                // bring lo up
	OpVeth                    // create a veth pair, each end in its namespace
	OpAddr                    // add an address to an interface
	OpLinkUp                  // bring an interface up
	OpRoute                   // add a route
	OpRule                    // add a policy routing rule
)

// Op is one step of building a topology. Plan returns them in the order
// Build runs them; String renders each like the iproute2 command it
// corresponds to, so a plan can be read and golden-tested.
type Op struct {
	Kind      OpKind
	Node      string // the namespace the operation runs in
	Peer      string // OpVeth: the other end's node
	Iface     string
	PeerIface string
	MTU       int
	Addr      netip.Prefix
	Route     Route
	Rule      Rule
	Key       string // OpSysctl
	Value     string
}

func (o Op) String() string {
	switch o.Kind {
	case OpNamespace:
		return fmt.Sprintf("netns add %s", o.Node)
	case OpSysctl:
		return fmt.Sprintf("%s: sysctl %s=%s", o.Node, o.Key, o.Value)
	case OpLoopback:
		return fmt.Sprintf("%s: link set lo up", o.Node)
	case OpVeth:
		return fmt.Sprintf("%s: link add %s mtu %d type veth peer %s netns %s", o.Node, o.Iface, o.MTU, o.PeerIface, o.Peer)
	case OpAddr:
		return fmt.Sprintf("%s: addr add %s dev %s", o.Node, o.Addr, o.Iface)
	case OpLinkUp:
		return fmt.Sprintf("%s: link set %s up", o.Node, o.Iface)
	case OpRoute:
		s := fmt.Sprintf("%s: route add %s", o.Node, o.Route.Dst)
		if o.Route.Via.IsValid() {
			s += " via " + o.Route.Via.String()
		}
		if o.Route.Dev != "" {
			s += " dev " + o.Route.Dev
		}
		if o.Route.Table != 0 {
			s += fmt.Sprintf(" table %d", o.Route.Table)
		}
		return s
	case OpRule:
		s := fmt.Sprintf("%s: rule add pref %d", o.Node, o.Rule.Priority)
		if o.Rule.Mark != 0 {
			s += fmt.Sprintf(" fwmark %d", o.Rule.Mark)
		}
		if o.Rule.From.IsValid() {
			s += " from " + o.Rule.From.String()
		}
		return s + fmt.Sprintf(" lookup %d", o.Rule.Table)
	}
	return fmt.Sprintf("unknown op %d", o.Kind)
}

// nodeSysctls are written in every node before its interfaces exist, so
// the interfaces inherit them: no IPv6 (no router or neighbour
// solicitations wandering through the delay lines) and no reverse-path
// filter (DC packets arrive on a link other than the route back).
var nodeSysctls = [][2]string{
	{"net.ipv6.conf.all.disable_ipv6", "1"},
	{"net.ipv6.conf.default.disable_ipv6", "1"},
	{"net.ipv4.conf.all.rp_filter", "0"},
	{"net.ipv4.conf.default.rp_filter", "0"},
}

// Plan returns the operations that build spec, in order. Namespace and
// interface names in the ops are the node's short names; Build maps them to
// the run's namespaces.
func Plan(s Spec) []Op {
	var ops []Op
	for _, n := range s.Nodes {
		ops = append(ops, Op{Kind: OpNamespace, Node: n.Name})
	}
	for _, n := range s.Nodes {
		for _, kv := range slices.Concat(nodeSysctls, n.Sysctls) {
			ops = append(ops, Op{Kind: OpSysctl, Node: n.Name, Key: kv[0], Value: kv[1]})
		}
		if n.Forward {
			ops = append(ops, Op{Kind: OpSysctl, Node: n.Name, Key: "net.ipv4.ip_forward", Value: "1"})
		}
		ops = append(ops, Op{Kind: OpLoopback, Node: n.Name})
	}
	for _, l := range s.Links {
		mtu := l.MTU
		if mtu == 0 {
			mtu = 1500
		}
		ops = append(ops, Op{Kind: OpVeth, Node: l.A.Node, Iface: l.A.Iface, Peer: l.B.Node, PeerIface: l.B.Iface, MTU: mtu})
		for _, e := range []End{l.A, l.B} {
			for _, a := range e.Addrs {
				ops = append(ops, Op{Kind: OpAddr, Node: e.Node, Iface: e.Iface, Addr: a})
			}
			ops = append(ops, Op{Kind: OpLinkUp, Node: e.Node, Iface: e.Iface})
		}
	}
	for _, n := range s.Nodes {
		for _, r := range n.Routes {
			ops = append(ops, Op{Kind: OpRoute, Node: n.Name, Route: r})
		}
		for _, r := range n.Rules {
			ops = append(ops, Op{Kind: OpRule, Node: n.Name, Rule: r})
		}
	}
	return ops
}
