package gsofwd

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// Tunnelling. A link that carries PDUs runs its shaper faster by their
// UDP encapsulation (link.Shape.Encap), which is exact only for packets
// that carry it: a single-link client's packet crossing the same link
// bare would get 1.8 % more than the link's rate. So the packets of
// clients bound to one link (single-link clients, each of the MPTCP
// client's addresses) are routed into the TUN as well and cross their
// link in the same encapsulation, unnumbered: no PDCP header, no COUNT,
// never held, the radio link's own FIFO order kept. The receiving end
// tells them from PDUs by their first byte, an IP version: its top bit is
// a data PDU's D/C bit, which IPv4 and IPv6 leave 0 (a control PDU, which
// the proxies never send, and 100 and 110 are reserved PDU types).

// Tunnel is a subnet whose packets, to or from it, cross one link (0 or
// 1) unnumbered.
type Tunnel struct {
	Prefix netip.Prefix // IPv4
	Link   int
}

// Tunnels matches IPv4 packets to the link of their tunnel. The zero
// value has none.
type Tunnels struct {
	nets []tunnelNet
}

type tunnelNet struct {
	addr, mask uint32
	link       int
}

// Set replaces the tunnels.
func (t *Tunnels) Set(rules []Tunnel) error {
	t.nets = t.nets[:0]
	for _, r := range rules {
		if !r.Prefix.IsValid() || !r.Prefix.Addr().Is4() {
			return fmt.Errorf("gsofwd: tunnel %v: want an IPv4 prefix", r.Prefix)
		}
		if r.Link != 0 && r.Link != 1 {
			return fmt.Errorf("gsofwd: tunnel %v: link %d (want 0 or 1)", r.Prefix, r.Link)
		}
		p := r.Prefix.Masked()
		mask := ^uint32(0) << (32 - p.Bits())
		if p.Bits() == 0 {
			mask = 0
		}
		a := p.Addr().As4()
		t.nets = append(t.nets, tunnelNet{addr: binary.BigEndian.Uint32(a[:]), mask: mask, link: r.Link})
	}
	return nil
}

// Link returns the link of the tunnel whose subnet holds pkt's source or
// destination address, or false: pkt is a PDU's SDU. It does not
// allocate; with no tunnels it costs one length check.
func (t *Tunnels) Link(pkt []byte) (int, bool) {
	if len(t.nets) == 0 || len(pkt) < 20 || pkt[0]>>4 != 4 {
		return 0, false
	}
	src, dst := binary.BigEndian.Uint32(pkt[12:16]), binary.BigEndian.Uint32(pkt[16:20])
	for _, n := range t.nets {
		if src&n.mask == n.addr || dst&n.mask == n.addr {
			return n.link, true
		}
	}
	return 0, false
}

// Tunnelled reports whether a datagram carries a bare IP packet rather
// than a PDU: IPv4 or IPv6, whose version leaves the D/C bit 0. The bit
// is tested by the IP versions, not by pdcp's header, so that the
// mechanism stays apart from PDCP (it does not import pdcp): a data
// PDU's first bit is 1, and versions 4 (0100) and 6 (0110) have it 0.
func Tunnelled(datagram []byte) bool {
	if len(datagram) == 0 {
		return false
	}
	v := datagram[0] >> 4
	return v == 4 || v == 6
}
