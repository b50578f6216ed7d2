package mptcp

import (
	"fmt"
	"net/netip"
	"strings"
)

// Flags are a path-manager endpoint's flags (MPTCP_PM_ADDR_FLAG_*), as
// `ip mptcp endpoint add ... signal subflow backup fullmesh` sets them.
type Flags uint32

const (
	// FlagSignal announces the address to the peer (ADD_ADDR).
	FlagSignal Flags = 1 << 0
	// FlagSubflow opens a subflow from this address to the peer.
	FlagSubflow Flags = 1 << 1
	// FlagBackup marks subflows over the address as backup: used only
	// when no other subflow can send.
	FlagBackup Flags = 1 << 2
	// FlagFullmesh opens a subflow from this address to every address the
	// peer announced.
	FlagFullmesh Flags = 1 << 3
	// FlagImplicit is set by the kernel on endpoints it made itself.
	FlagImplicit Flags = 1 << 4
	// FlagLaminar (Linux 6.18) opens one subflow from this address to an
	// announced address not yet used.
	FlagLaminar Flags = 1 << 5
)

var flagNames = []struct {
	f    Flags
	name string
}{{FlagSignal, "signal"}, {FlagSubflow, "subflow"}, {FlagBackup, "backup"},
	{FlagFullmesh, "fullmesh"}, {FlagImplicit, "implicit"}, {FlagLaminar, "laminar"}}

// String lists the flags by the names ip mptcp uses, comma-separated.
func (f Flags) String() string {
	var names []string
	for _, n := range flagNames {
		if f&n.f != 0 {
			names = append(names, n.name)
			f &^= n.f
		}
	}
	if f != 0 {
		names = append(names, fmt.Sprintf("0x%x", uint32(f)))
	}
	return strings.Join(names, ",")
}

// ParseFlags reads a comma-separated list of flag names (signal, subflow,
// backup, fullmesh, laminar); the empty string is no flag.
func ParseFlags(s string) (Flags, error) {
	var f Flags
	if s == "" {
		return 0, nil
	}
next:
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		for _, n := range flagNames {
			if n.name == w && n.f != FlagImplicit {
				f |= n.f
				continue next
			}
		}
		return 0, fmt.Errorf("mptcp endpoint flag %q: want signal, subflow, backup, fullmesh or laminar", w)
	}
	return f, nil
}

// Endpoint is one address of the in-kernel path manager.
type Endpoint struct {
	// ID identifies the endpoint in its namespace (1..255); 0 when adding
	// lets the kernel pick.
	ID   uint8
	Addr netip.Addr
	// Port is for signal endpoints: the port announced (0: the
	// connection's); subflow endpoints must leave it 0.
	Port  uint16
	Flags Flags
	// IfIndex binds subflows from this address to an interface (0: by
	// routing).
	IfIndex int32
}

func (e Endpoint) String() string {
	s := fmt.Sprintf("id %d %s", e.ID, e.Addr)
	if e.Port != 0 {
		s += fmt.Sprintf(" port %d", e.Port)
	}
	if e.Flags != 0 {
		s += " " + strings.ReplaceAll(e.Flags.String(), ",", " ")
	}
	if e.IfIndex != 0 {
		s += fmt.Sprintf(" ifindex %d", e.IfIndex)
	}
	return s
}

// Limits bound the in-kernel path manager per connection: how many extra
// subflows it creates or accepts, and how many announced addresses it
// accepts from the peer (each at most 8).
type Limits struct {
	Subflows        uint32
	AddAddrAccepted uint32
}

// MaxLimit is the kernel's upper bound of both limits (MPTCP_PM_ADDR_MAX).
const MaxLimit = 8
