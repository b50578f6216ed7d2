package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Observe is what a run records about its flows beyond their results: how
// often the TCP servers sample their sockets' TCP_INFO, and which
// interfaces it captures packets on. The send stamps, one-way delay logs
// and TLS key logs are always on (they cost nothing measurable).
type Observe struct {
	// TCPInfoInterval is the TCP servers' TCP_INFO sampling interval
	// (run.tcpinfo_interval).
	TCPInfoInterval time.Duration
	// Pcap says where the run captures packets (run.pcap); the zero value
	// captures nothing.
	Pcap Pcap
	// PcapSnaplen is the bytes kept of each packet; 0 keeps whole packets
	// (run.pcap_snaplen).
	PcapSnaplen int
}

// Pcap is the value of run.pcap: off, every standard capture point (All:
// both ends of each link and the server's and clients' veths), or a list
// of node:iface.
type Pcap struct {
	All    bool
	Ifaces []PcapIface
}

// PcapIface is one capture point: an interface of a node, by the names of
// the topology (srv:gws, gws:l1, gwc:l2, cli:gwc, …).
type PcapIface struct{ Node, Iface string }

// On reports whether the run captures anything.
func (p Pcap) On() bool { return p.All || len(p.Ifaces) > 0 }

func (p Pcap) String() string {
	switch {
	case p.All:
		return "true"
	case len(p.Ifaces) == 0:
		return "false"
	}
	parts := make([]string, len(p.Ifaces))
	for i, f := range p.Ifaces {
		parts[i] = f.Node + ":" + f.Iface
	}
	return strings.Join(parts, ",")
}

// Limits of the observation keys.
const (
	MinTCPInfoInterval = time.Millisecond
	MaxTCPInfoInterval = 10 * time.Second
	// MaxPcapSnaplen is the largest snap length (tcpdump's, and
	// emu/capture's).
	MaxPcapSnaplen = 262144
)

// DefaultTCPInfoInterval is run.tcpinfo_interval's default.
const DefaultTCPInfoInterval = 10 * time.Millisecond

// defaultObserve is what DefaultConfig records.
func defaultObserve() Observe { return Observe{TCPInfoInterval: DefaultTCPInfoInterval} }

// Node and interface names as the topology spells them.
var (
	pcapNode  = regexp.MustCompile(`^[a-z][a-z0-9]{0,7}$`)
	pcapIface = regexp.MustCompile(`^[a-z][a-z0-9]{0,14}$`)
)

// ParsePcap parses run.pcap: true/false (on, off, …) or node:iface[,node:iface…].
func ParsePcap(v string) (Pcap, error) {
	if b, err := parseBool(v); err == nil {
		return Pcap{All: b}, nil
	}
	if strings.TrimSpace(v) == "" {
		return Pcap{}, nil
	}
	var p Pcap
	seen := map[PcapIface]bool{}
	for _, part := range strings.Split(v, ",") {
		node, iface, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok || !pcapNode.MatchString(node) || !pcapIface.MatchString(iface) {
			return Pcap{}, fmt.Errorf("%q is not node:iface (e.g. srv:gws, gws:l1, gwc:l1, cli:gwc); want true, false or a comma list of node:iface", part)
		}
		f := PcapIface{node, iface}
		if seen[f] {
			return Pcap{}, fmt.Errorf("%s:%s is listed twice", node, iface)
		}
		seen[f] = true
		p.Ifaces = append(p.Ifaces, f)
	}
	return p, nil
}

// observeParams are the run.* keys of Observe, in display order.
func observeParams() []Param {
	return []Param{
		durationParam("run.tcpinfo_interval", "how often TCP servers sample their socket's TCP_INFO (srtt, cwnd, in flight, retransmits) into flows/<flow>.tcpinfo.csv",
			func(c *Config) *time.Duration { return &c.Observe.TCPInfoInterval }),
		{"run.pcap", "bool or list", "capture packets into pcap/<node>-<iface>.pcapng: true = both ends of each link and the server and client veths; or node:iface,…; false = none",
			func(c *Config) string { return c.Observe.Pcap.String() },
			func(c *Config, v string) (err error) { c.Observe.Pcap, err = ParsePcap(v); return }},
		intParam("run.pcap_snaplen", "bytes", "bytes kept of each captured packet (0 = whole packets)",
			func(c *Config) *int { return &c.Observe.PcapSnaplen }),
	}
}

// validate reports the problems of o, each naming its key.
func (o Observe) validate() []error {
	var errs []error
	if o.TCPInfoInterval < MinTCPInfoInterval || o.TCPInfoInterval > MaxTCPInfoInterval {
		errs = append(errs, fmt.Errorf("run.tcpinfo_interval: %v is out of range (%v..%v)", o.TCPInfoInterval, MinTCPInfoInterval, MaxTCPInfoInterval))
	}
	if o.PcapSnaplen < 0 || o.PcapSnaplen > MaxPcapSnaplen {
		errs = append(errs, fmt.Errorf("run.pcap_snaplen: %s is out of range (0 = whole packets, or 1..%d)", strconv.Itoa(o.PcapSnaplen), MaxPcapSnaplen))
	}
	if o.Pcap.All && len(o.Pcap.Ifaces) > 0 {
		errs = append(errs, errors.New("run.pcap: true and a list of interfaces at once"))
	}
	return errs
}
