package config

import (
	"fmt"
	"regexp"
	"strconv"
)

// PathMPTCP is the path of a Multipath TCP client: one address per link,
// a subflow over each (topo.PathMPTCP).
const PathMPTCP = "mptcp"

// MPTCP configures the kernel's Multipath TCP for flows on PathMPTCP: the
// in-kernel path manager of the client (one endpoint, for its link2
// address) and of the server (limits only), and the packet scheduler of
// both. It applies only when a flow uses PathMPTCP.
type MPTCP struct {
	// Flags are the flags of the client's link2 endpoint: MPTCPSubflow
	// opens one subflow from it to the server; MPTCPFullmesh (subflow and
	// fullmesh) one to every address the server has announced, which with
	// emu's one-address server is the same subflow.
	Flags string
	// Backup marks the link2 endpoint backup: the server sends on its
	// subflow only when no other subflow can.
	Backup bool
	// Subflows is the path managers' limit of additional subflows per
	// connection (client and server), AddAddrAccepted the number of
	// addresses announced by the peer a connection accepts; each 0..8.
	Subflows, AddAddrAccepted int
	// Scheduler is net.mptcp.scheduler of both ends; the run checks it
	// against what the kernel offers (emu doctor lists them).
	Scheduler string
}

// Values of MPTCP.Flags.
const (
	MPTCPSubflow  = "subflow"
	MPTCPFullmesh = "fullmesh"
)

// mptcpMaxLimit is the kernel's bound of both path-manager limits
// (MPTCP_PM_ADDR_MAX).
const mptcpMaxLimit = 8

// DefaultMPTCP is the MPTCP configuration of every scenario: a subflow
// endpoint on link2, room for two extra subflows, the kernel's default
// scheduler.
func DefaultMPTCP() MPTCP {
	return MPTCP{Flags: MPTCPSubflow, Subflows: 2, AddAddrAccepted: 2, Scheduler: "default"}
}

// UsesMPTCP reports whether a flow of c takes PathMPTCP.
func (c *Config) UsesMPTCP() bool {
	for _, f := range c.Flows {
		if f.Path == PathMPTCP {
			return true
		}
	}
	return false
}

func mptcpParams() []Param {
	return []Param{
		stringParam("mptcp.flags", "flags of the MPTCP client's link2 path-manager endpoint: subflow, or fullmesh (subflow to every address the server announced)",
			func(c *Config) *string { return &c.MPTCP.Flags }),
		boolParam("mptcp.backup", "mark the MPTCP client's link2 endpoint backup: the server uses its subflow only when link1's cannot send",
			func(c *Config) *bool { return &c.MPTCP.Backup }),
		intParam("mptcp.subflows", "subflows", "path-manager limit of additional subflows per MPTCP connection, client and server (0..8)",
			func(c *Config) *int { return &c.MPTCP.Subflows }),
		intParam("mptcp.add_addr_accepted", "addresses", "path-manager limit of announced addresses an MPTCP connection accepts (0..8)",
			func(c *Config) *int { return &c.MPTCP.AddAddrAccepted }),
		stringParam("mptcp.scheduler", "MPTCP packet scheduler (net.mptcp.scheduler) of client and server; checked against the kernel's at run start",
			func(c *Config) *string { return &c.MPTCP.Scheduler }),
	}
}

// kernelName matches the names the kernel gives its MPTCP schedulers and
// TCP congestion controls (at most TCP_CA_NAME_MAX-1 bytes).
var kernelName = regexp.MustCompile(`^[a-z0-9_]{1,15}$`)

// validateMPTCP checks the mptcp keys and the flows on PathMPTCP: MPTCP
// flows are kernel TCP through emu's Go endpoints, the only ones that open
// MPTCP sockets.
func (c *Config) validateMPTCP() []error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	m := c.MPTCP
	if m.Flags != MPTCPSubflow && m.Flags != MPTCPFullmesh {
		bad("mptcp.flags", "want %s or %s (got %q)", MPTCPSubflow, MPTCPFullmesh, m.Flags)
	}
	for _, l := range []struct {
		key string
		v   int
	}{{"mptcp.subflows", m.Subflows}, {"mptcp.add_addr_accepted", m.AddAddrAccepted}} {
		if l.v < 0 || l.v > mptcpMaxLimit {
			bad(l.key, "want 0..%d (the kernel's limit; got %d)", mptcpMaxLimit, l.v)
		}
	}
	if c.UsesMPTCP() && m.Subflows < 1 {
		bad("mptcp.subflows", "an MPTCP flow needs at least 1 for its link2 subflow (got 0)")
	}
	if !kernelName.MatchString(m.Scheduler) {
		bad("mptcp.scheduler", "%q is not a scheduler name", m.Scheduler)
	}
	for i, f := range c.Flows {
		if f.Path != PathMPTCP {
			continue
		}
		k := "flows." + strconv.Itoa(i) + "."
		if f.Proto != "tcp" {
			bad(k+"path", "mptcp is Multipath TCP: it needs %sproto=tcp (got %q)", k, f.Proto)
		}
	}
	return errs
}
