package config

import (
	"fmt"
	"strconv"
)

// PEP is a split-TCP performance-enhancing proxy in the server-side
// gateway (gws), as a satellite operator's gateway runs one (PEPsal in
// the satellite report, docs/satellite.md): it takes every TCP connection
// a client opens to the server over link1 or link2, terminates it, and
// opens its own to the server from the client's address, so neither end
// is configured for it and the satellite segment (gateway to client) has
// a congestion control, buffer and initial window of its own. QUIC and
// other UDP pass it untouched.
type PEP struct {
	Enabled bool
	// CC is the congestion control of the proxy's satellite-side sockets
	// (a kernel name; "" keeps the kernel's default). It is checked
	// against the kernel's when the run starts.
	CC string
	// Buffer is the send and receive buffer of each of the proxy's sockets
	// in bytes (SO_SNDBUF, SO_RCVBUF); 0 leaves them to the kernel's
	// autotuning.
	Buffer int64
	// InitCwnd is the initial congestion window, in segments, of the
	// proxy's satellite-side connections (the gateway's routes to the
	// clients, as ip route's initcwnd); 0 keeps the kernel's 10.
	InitCwnd int
}

// pepMaxInitCwnd bounds pep.initcwnd: far above any deployed initial
// window, low enough that a typo (10000) is caught.
const pepMaxInitCwnd = 1000

func pepParams() []Param {
	return []Param{
		boolParam("pep.enabled", "run a split-TCP proxy (PEP) in the server-side gateway: it terminates the TCP connections of link1 and link2 clients and opens its own to the server; QUIC passes untouched",
			func(c *Config) *bool { return &c.PEP.Enabled }),
		stringParam("pep.cc", "congestion control of the PEP's satellite-side sockets (a kernel name: cubic, reno, bbr); empty = the kernel's default",
			func(c *Config) *string { return &c.PEP.CC }),
		sizeField("buffer", "send and receive buffer of each PEP socket (0 = the kernel's autotuning)",
			func(c *Config) *int64 { return &c.PEP.Buffer }).param("pep.", self),
		intParam("pep.initcwnd", "segments", "initial congestion window of the PEP's satellite-side connections (0 = the kernel's 10)",
			func(c *Config) *int { return &c.PEP.InitCwnd }),
	}
}

// validatePEP checks the pep keys: a PEP that no flow would pass, or that
// would break a flow, is refused with the reason, and its settings are
// refused while it is off, so none is silently ignored.
func (c *Config) validatePEP() []error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	p := c.PEP
	if !p.Enabled {
		for _, s := range []struct {
			key string
			set bool
		}{{"pep.cc", p.CC != ""}, {"pep.buffer", p.Buffer != 0}, {"pep.initcwnd", p.InitCwnd != 0}} {
			if s.set {
				bad(s.key, "set while pep.enabled=false: the PEP it tunes does not run")
			}
		}
		return errs
	}
	if p.CC != "" && !kernelName.MatchString(p.CC) {
		bad("pep.cc", "%q is not a congestion control name", p.CC)
	}
	if p.Buffer < 0 {
		bad("pep.buffer", "negative")
	}
	if p.InitCwnd < 0 || p.InitCwnd > pepMaxInitCwnd {
		bad("pep.initcwnd", "want 0..%d segments (got %d)", pepMaxInitCwnd, p.InitCwnd)
	}
	split := 0
	for i, f := range c.Flows {
		if f.Proto != "tcp" {
			continue
		}
		k := "flows." + strconv.Itoa(i) + ".path"
		switch f.Path {
		case PathLink1, PathLink2:
			split++
		case PathMPTCP:
			bad("pep.enabled", "%s=%s: a PEP splits single-path TCP; the MPTCP connection would lose its subflows", k, f.Path)
		case PathDC:
			bad("pep.enabled", "%s=%s: the PEP's own packets would leave the gateway past the PDCP proxy; give the TCP flows path link1 or link2", k, f.Path)
		}
	}
	if split == 0 {
		bad("pep.enabled", "no flow passes the PEP: it splits TCP connections over link1 or link2 (a flow with proto=tcp and path=link1 or link2)")
	}
	return errs
}
