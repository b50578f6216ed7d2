package topo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/nsthread"
)

// Net is a built topology. Close deletes its namespaces and with them every
// interface, qdisc, rule and route made inside; it is idempotent.
type Net struct {
	Spec  Spec
	nodes map[string]*NodeNS

	mu     sync.Mutex
	closed bool
}

// NodeNS is a node of a built topology: its namespace and a netlink handle
// bound to that namespace, so kernel calls never depend on the calling
// thread's namespace.
type NodeNS struct {
	Node
	NSName string
	NS     netns.NsHandle
	Handle *netlink.Handle
}

// Do runs f on a thread inside the node's namespace (for sockets and
// anything else that takes its namespace from the calling thread).
func (n *NodeNS) Do(f func() error) error {
	return nsthread.Run(func() error {
		if err := netns.Set(n.NS); err != nil {
			return fmt.Errorf("enter netns %s: %w", n.NSName, err)
		}
		return f()
	})
}

// Link returns an interface of the node by name.
func (n *NodeNS) Link(iface string) (netlink.Link, error) {
	l, err := n.Handle.LinkByName(iface)
	if err != nil {
		return nil, fmt.Errorf("%s: link %s: %w", n.NSName, iface, err)
	}
	return l, nil
}

// Node returns a node by short name.
func (n *Net) Node(name string) (*NodeNS, error) {
	nd, ok := n.nodes[name]
	if !ok {
		return nil, fmt.Errorf("no node %q in this topology", name)
	}
	return nd, nil
}

// Build creates the topology. On any error it removes what it created and
// returns an error naming the failed step.
func Build(ctx context.Context, s Spec) (*Net, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("topo: invalid spec: %w", err)
	}
	n := &Net{Spec: s, nodes: map[string]*NodeNS{}}
	for _, op := range Plan(s) {
		if err := ctx.Err(); err != nil {
			return nil, errors.Join(err, n.Close())
		}
		if err := n.apply(op); err != nil {
			return nil, errors.Join(fmt.Errorf("topo: %s: %w", n.describe(op), err), n.Close())
		}
	}
	return n, nil
}

// describe renders an op with the run's namespace names.
func (n *Net) describe(op Op) string {
	op.Node = NamespaceName(n.Spec.RunID, op.Node)
	if op.Peer != "" {
		op.Peer = NamespaceName(n.Spec.RunID, op.Peer)
	}
	return op.String()
}

func (n *Net) apply(op Op) error {
	if op.Kind == OpNamespace {
		name := NamespaceName(n.Spec.RunID, op.Node)
		ns, err := createNamed(name)
		if err != nil {
			return err
		}
		node, _ := n.Spec.Node(op.Node)
		nd := &NodeNS{Node: node, NSName: name, NS: ns}
		n.nodes[op.Node] = nd // registered before anything can fail, so Close removes it
		nd.Handle, err = netlink.NewHandleAt(ns)
		return err
	}
	nd := n.nodes[op.Node]
	h := nd.Handle
	switch op.Kind {
	case OpSysctl:
		return nd.Do(func() error { return writeSysctl(op.Key, op.Value) })
	case OpLoopback:
		lo, err := nd.Link("lo")
		if err != nil {
			return err
		}
		return h.LinkSetUp(lo)
	case OpVeth:
		peer := n.nodes[op.Peer]
		v := &netlink.Veth{
			LinkAttrs:     netlink.LinkAttrs{Name: op.Iface, MTU: op.MTU, TxQLen: 1000},
			PeerName:      op.PeerIface,
			PeerNamespace: netlink.NsFd(peer.NS),
			PeerMTU:       uint32(op.MTU),
			PeerTxQLen:    1000,
		}
		return h.LinkAdd(v)
	case OpAddr:
		l, err := nd.Link(op.Iface)
		if err != nil {
			return err
		}
		return h.AddrAdd(l, &netlink.Addr{IPNet: prefixToIPNet(op.Addr)})
	case OpLinkUp:
		l, err := nd.Link(op.Iface)
		if err != nil {
			return err
		}
		return h.LinkSetUp(l)
	case OpRoute:
		r := &netlink.Route{Dst: prefixToIPNet(op.Route.Dst), Table: op.Route.Table}
		if op.Route.Via.IsValid() {
			r.Gw = net.IP(op.Route.Via.AsSlice())
		}
		if op.Route.Dev != "" {
			l, err := nd.Link(op.Route.Dev)
			if err != nil {
				return err
			}
			r.LinkIndex = l.Attrs().Index
		}
		return h.RouteReplace(r)
	case OpRule:
		r := netlink.NewRule()
		r.Priority = op.Rule.Priority
		r.Table = op.Rule.Table
		r.Family = unix.AF_INET
		if op.Rule.Mark != 0 {
			m := uint32(0xffffffff)
			r.Mark, r.Mask = op.Rule.Mark, &m
		}
		if op.Rule.From.IsValid() {
			r.Src = prefixToIPNet(op.Rule.From)
		}
		return h.RuleAdd(r)
	}
	return fmt.Errorf("unknown op kind %d", op.Kind)
}

// Close deletes the topology's namespaces (killing any process left in
// them) and releases its handles. It is safe to call more than once.
func (n *Net) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	var errs []error
	for _, nd := range n.nodes {
		if nd.Handle != nil {
			nd.Handle.Close()
		}
		if nd.NS.IsOpen() {
			nd.NS.Close()
		}
		if err := DeleteNamespace(nd.NSName); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func prefixToIPNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: net.IP(p.Addr().AsSlice()), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}
