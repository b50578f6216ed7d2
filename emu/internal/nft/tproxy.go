package nft

import (
	"fmt"
	"net/netip"
)

// TProxy hands TCP connections to a transparent proxy on the same host
// (nft "tproxy", netfilter's TPROXY): a segment arriving on one of IIfs for
// Dst is delivered to the local socket listening on Port with IP_TRANSPARENT,
// though its destination is not a local address; a segment of a connection
// a transparent socket already owns (the proxy's accepted connections, and
// its own connections made from the client's address) goes to that socket.
// Both are marked with Mark, which a policy rule must route to the local
// table (the kernel's TPROXY recipe, Documentation/networking/tproxy.rst).
type TProxy struct {
	// IIfs are the interfaces whose new connections the proxy takes.
	IIfs []string
	// Dst is the address whose connections are taken (the server).
	Dst netip.Addr
	// Port is the proxy's listening port.
	Port uint16
	// Mark marks the segments delivered to the proxy's sockets.
	Mark uint32
}

// TProxyChain is a prerouting base chain of an ip-family table with the
// TProxy's rules: the tproxy statement of nftables is bound to a family.
type TProxyChain struct {
	Name     string
	Priority int
	Proxy    TProxy
}

// validateTProxy reports every problem of a tproxy chain at once.
func validateTProxy(table string, c TProxyChain) error {
	var errs []error
	if table == "" {
		errs = append(errs, fmt.Errorf("empty table name"))
	}
	if c.Name == "" {
		errs = append(errs, fmt.Errorf("chain: empty name"))
	}
	p := c.Proxy
	if len(p.IIfs) == 0 {
		errs = append(errs, fmt.Errorf("chain %q: no input interface", c.Name))
	}
	for _, i := range p.IIfs {
		if i == "" || len(i) >= ifNameSize {
			errs = append(errs, fmt.Errorf("chain %q: interface name %q empty or longer than %d bytes", c.Name, i, ifNameSize-1))
		}
	}
	if !p.Dst.Is4() {
		errs = append(errs, fmt.Errorf("chain %q: destination %v is not an IPv4 address", c.Name, p.Dst))
	}
	if p.Port == 0 {
		errs = append(errs, fmt.Errorf("chain %q: no proxy port", c.Name))
	}
	if p.Mark == 0 {
		errs = append(errs, fmt.Errorf("chain %q: no mark (the policy rule routes by it)", c.Name))
	}
	return joinErrs(errs)
}
