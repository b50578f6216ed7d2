package nft

import (
	"fmt"
	"net/netip"
)

// DupRule copies every IPv4 packet it matches, after the verdicts of the
// chains before it, and sends the copy to next hop To out of device Dev
// (nft "dup to To device Dev"); the original goes on unchanged. The
// kernel routes and sends the copy itself (nf_dup_ipv4: the copy's TTL is
// decremented when duplicated before routing, and it leaves through the
// output path and the device's qdisc like any packet), so no socket and
// no userspace copy is involved.
type DupRule struct {
	// IIf is the input interface name; "" matches any.
	IIf string
	// Mark matches packets whose netfilter mark equals it; 0 matches any.
	Mark uint32
	// Proto matches this IP protocol; 0 matches any.
	Proto uint8
	// To is the copy's next hop, an IPv4 address on Dev's link.
	To netip.Addr
	// Dev names the output device, DevIndex is its interface index in the
	// namespace (nftables stores the index, as nft itself resolves it).
	Dev      string
	DevIndex int
}

// DupChain is a base chain of an ip-family table holding DupRules: the dup
// statement exists only in the ip and ip6 families (nft_dup_ipv4,
// nft_dup_ipv6), not in inet tables, so it cannot share the queue rules'
// table. Its hooks are ordered with inet chains by priority.
type DupChain struct {
	Name     string
	Hook     Hook
	Priority int
	Rules    []DupRule
}

// validateDup reports every problem of a dup chain at once.
func validateDup(table string, c DupChain) error {
	var errs []error
	if table == "" {
		errs = append(errs, fmt.Errorf("empty table name"))
	}
	where := fmt.Sprintf("chain %q", c.Name)
	if c.Name == "" {
		errs = append(errs, fmt.Errorf("%s: empty name", where))
	}
	if c.Hook < Prerouting || c.Hook > Postrouting {
		errs = append(errs, fmt.Errorf("%s: unknown hook %d", where, int(c.Hook)))
	}
	for j, r := range c.Rules {
		rw := fmt.Sprintf("%s rule %d", where, j)
		if len(r.IIf) >= ifNameSize {
			errs = append(errs, fmt.Errorf("%s: interface name longer than %d bytes", rw, ifNameSize-1))
		}
		if !r.To.Is4() {
			errs = append(errs, fmt.Errorf("%s: next hop %v is not an IPv4 address", rw, r.To))
		}
		if r.DevIndex <= 0 {
			errs = append(errs, fmt.Errorf("%s: device %q has no interface index", rw, r.Dev))
		}
	}
	return joinErrs(errs)
}
