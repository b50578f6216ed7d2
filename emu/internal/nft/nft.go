package nft

import (
	"fmt"
	"net/netip"
)

// Hook is the netfilter hook a base chain attaches to.
type Hook int

// Hooks of the inet family a queue chain can use.
const (
	Prerouting Hook = iota
	Input
	Forward
	Output
	Postrouting
)

func (h Hook) String() string {
	switch h {
	case Prerouting:
		return "prerouting"
	case Input:
		return "input"
	case Forward:
		return "forward"
	case Output:
		return "output"
	case Postrouting:
		return "postrouting"
	}
	return fmt.Sprintf("hook(%d)", int(h))
}

// Backend says how a queue statement is encoded for this kernel.
type Backend int

const (
	// BackendNone: the kernel accepts no queue statement at all.
	BackendNone Backend = iota
	// BackendNative is the nftables "queue" expression (CONFIG_NFT_QUEUE).
	BackendNative
	// BackendXT is the xtables NFQUEUE target (revision 3) through
	// nft_compat (CONFIG_NFT_COMPAT and CONFIG_NETFILTER_XT_TARGET_NFQUEUE).
	BackendXT
)

func (b Backend) String() string {
	switch b {
	case BackendNone:
		return "none"
	case BackendNative:
		return "nft queue expression"
	case BackendXT:
		return "xt NFQUEUE target via nft_compat"
	}
	return fmt.Sprintf("backend(%d)", int(b))
}

// QueueRule sends the packets it matches to an NFQUEUE. All set match fields
// must match (logical and); a zero field matches everything.
type QueueRule struct {
	// IIf is the input interface name (meta iifname); "" matches any.
	IIf string
	// OIf is the output interface name (meta oifname); "" matches any. Not
	// usable in prerouting or input chains, where no output device is known.
	OIf string
	// Proto matches this IP protocol (IPv4 protocol or IPv6 upper-layer
	// header, meta l4proto); 0 matches any.
	Proto uint8
	// NotProto excludes this IP protocol; 0 excludes nothing.
	NotProto uint8
	// Dst matches packets whose destination address is in any of these
	// prefixes; IPv4 prefixes match only IPv4 packets and IPv6 prefixes only
	// IPv6 packets. Empty matches any destination.
	Dst []netip.Prefix
	// Queue is the NFQUEUE number.
	Queue uint16
	// Bypass accepts packets instead of dropping them while no program is
	// bound to the queue.
	Bypass bool
}

// Chain is a base chain of queue rules at a hook and priority. Lower
// priorities run first; a packet accepted by userspace from a queue in one
// chain continues with the chains of higher priority at the same hook.
type Chain struct {
	Name     string
	Hook     Hook
	Priority int
	Rules    []QueueRule
}

// validate reports every problem of a chain list at once.
func validate(table string, chains []Chain) error {
	var errs []error
	if table == "" {
		errs = append(errs, fmt.Errorf("empty table name"))
	}
	seen := map[string]bool{}
	for i, c := range chains {
		where := fmt.Sprintf("chain %d (%q)", i, c.Name)
		if c.Name == "" {
			errs = append(errs, fmt.Errorf("%s: empty name", where))
		}
		if seen[c.Name] {
			errs = append(errs, fmt.Errorf("%s: duplicate name", where))
		}
		seen[c.Name] = true
		if c.Hook < Prerouting || c.Hook > Postrouting {
			errs = append(errs, fmt.Errorf("%s: unknown hook %d", where, int(c.Hook)))
		}
		for j, r := range c.Rules {
			rw := fmt.Sprintf("%s rule %d", where, j)
			if len(r.IIf) >= ifNameSize || len(r.OIf) >= ifNameSize {
				errs = append(errs, fmt.Errorf("%s: interface name longer than %d bytes", rw, ifNameSize-1))
			}
			if r.OIf != "" && (c.Hook == Prerouting || c.Hook == Input) {
				errs = append(errs, fmt.Errorf("%s: output interface %q cannot be matched at %s", rw, r.OIf, c.Hook))
			}
			if r.Proto != 0 && r.Proto == r.NotProto {
				errs = append(errs, fmt.Errorf("%s: protocol %d both required and excluded", rw, r.Proto))
			}
			for _, p := range r.Dst {
				if !p.IsValid() {
					errs = append(errs, fmt.Errorf("%s: invalid destination prefix", rw))
				}
			}
		}
	}
	return joinErrs(errs)
}

// ifNameSize is IFNAMSIZ: interface names are NUL-padded to 16 bytes.
const ifNameSize = 16

func joinErrs(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	msg := errs[0].Error()
	for _, e := range errs[1:] {
		msg += "; " + e.Error()
	}
	return fmt.Errorf("%s", msg)
}
