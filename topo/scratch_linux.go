package topo

import (
	"fmt"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"github.com/dc-emu/emu/internal/nsthread"
)

// NewScratch creates an anonymous namespace for probes (`emu doctor`): it
// has no name in /run/netns and disappears when the returned node is closed.
func NewScratch() (*NodeNS, error) {
	var ns netns.NsHandle
	err := nsthread.Run(func() (err error) {
		ns, err = netns.New()
		return err
	})
	if err != nil {
		if ns.IsOpen() {
			ns.Close()
		}
		return nil, fmt.Errorf("create scratch netns: %w", err)
	}
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		ns.Close()
		return nil, fmt.Errorf("netlink handle in scratch netns: %w", err)
	}
	return &NodeNS{Node: Node{Name: "scratch"}, NSName: "scratch", NS: ns, Handle: h}, nil
}

// Close releases a scratch namespace.
func (n *NodeNS) Close() {
	if n.Handle != nil {
		n.Handle.Close()
	}
	if n.NS.IsOpen() {
		n.NS.Close()
	}
}
