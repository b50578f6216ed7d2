//go:build linux

package mptcp

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/mdlayher/genetlink"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// Commands and attributes of the mptcp_pm family
// (include/uapi/linux/mptcp_pm.h).
const (
	pmFamily  = "mptcp_pm"
	pmVersion = 1

	cmdAddAddr    = 1
	cmdDelAddr    = 2
	cmdGetAddr    = 3
	cmdFlushAddrs = 4
	cmdSetLimits  = 5
	cmdGetLimits  = 6

	attrAddr        = 1 // nested address
	attrRcvAddAddrs = 2 // u32
	attrSubflows    = 3 // u32
	addrAttrFamily  = 1 // u16
	addrAttrID      = 2 // u8
	addrAttrAddr4   = 3 // struct in_addr
	addrAttrAddr6   = 4 // struct in6_addr
	addrAttrPort    = 5 // u16
	addrAttrFlags   = 6 // u32
	addrAttrIfIndex = 7 // s32
)

// PM is a client of the in-kernel path manager of one network namespace.
// It is safe for use by one goroutine at a time.
type PM struct {
	c      *genetlink.Conn
	family uint16
}

// OpenPM connects to the path manager of the namespace whose file
// descriptor is nsFd. It refuses nsFd <= 0: the caller's own namespace is
// the host's in a run, and a run must not change the host's endpoints.
func OpenPM(nsFd int) (*PM, error) {
	if nsFd <= 0 {
		return nil, fmt.Errorf("mptcp pm: no network namespace given (fd %d); refusing to change the current one", nsFd)
	}
	c, err := genetlink.Dial(&netlink.Config{NetNS: nsFd, Strict: true})
	if err != nil {
		return nil, fmt.Errorf("mptcp pm: generic netlink in netns fd %d: %w", nsFd, err)
	}
	f, err := c.GetFamily(pmFamily)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("mptcp pm: family %s (a kernel without MPTCP?): %w", pmFamily, err)
	}
	return &PM{c: c, family: f.ID}, nil
}

// Close releases the netlink socket.
func (p *PM) Close() error { return p.c.Close() }

func (p *PM) do(cmd uint8, flags netlink.HeaderFlags, attrs func(*netlink.AttributeEncoder)) ([]genetlink.Message, error) {
	ae := netlink.NewAttributeEncoder()
	if attrs != nil {
		attrs(ae)
	}
	data, err := ae.Encode()
	if err != nil {
		return nil, err
	}
	return p.c.Execute(genetlink.Message{Header: genetlink.Header{Command: cmd, Version: pmVersion}, Data: data},
		p.family, netlink.Request|flags)
}

// AddEndpoint adds an endpoint and returns it as the kernel keeps it (with
// the id the kernel picked when e.ID is 0).
func (p *PM) AddEndpoint(e Endpoint) (Endpoint, error) {
	if !e.Addr.IsValid() {
		return Endpoint{}, errors.New("mptcp pm: add endpoint: no address")
	}
	if _, err := p.do(cmdAddAddr, netlink.Acknowledge, func(ae *netlink.AttributeEncoder) {
		ae.Nested(attrAddr, func(nae *netlink.AttributeEncoder) error { encodeEndpoint(nae, e); return nil })
	}); err != nil {
		return Endpoint{}, fmt.Errorf("mptcp pm: add endpoint %s: %w", e, err)
	}
	all, err := p.Endpoints()
	if err != nil {
		return Endpoint{}, fmt.Errorf("mptcp pm: read back endpoint %s: %w", e, err)
	}
	for _, got := range all {
		if got.Addr == e.Addr.Unmap() && got.Port == e.Port && (e.ID == 0 || got.ID == e.ID) {
			return got, nil
		}
	}
	return Endpoint{}, fmt.Errorf("mptcp pm: endpoint %s added but not listed", e)
}

// DeleteEndpoint removes the endpoint with this id, closing the subflows
// that use it.
func (p *PM) DeleteEndpoint(id uint8) error {
	if _, err := p.do(cmdDelAddr, netlink.Acknowledge, func(ae *netlink.AttributeEncoder) {
		ae.Nested(attrAddr, func(nae *netlink.AttributeEncoder) error { nae.Uint8(addrAttrID, id); return nil })
	}); err != nil {
		return fmt.Errorf("mptcp pm: delete endpoint id %d: %w", id, err)
	}
	return nil
}

// Endpoint returns the endpoint with this id.
func (p *PM) Endpoint(id uint8) (Endpoint, error) {
	msgs, err := p.do(cmdGetAddr, 0, func(ae *netlink.AttributeEncoder) {
		ae.Nested(attrAddr, func(nae *netlink.AttributeEncoder) error { nae.Uint8(addrAttrID, id); return nil })
	})
	if err != nil {
		return Endpoint{}, fmt.Errorf("mptcp pm: get endpoint id %d: %w", id, err)
	}
	eps, err := decodeEndpoints(msgs)
	if err != nil || len(eps) != 1 {
		return Endpoint{}, fmt.Errorf("mptcp pm: get endpoint id %d: %d endpoints in the answer: %v", id, len(eps), err)
	}
	return eps[0], nil
}

// Endpoints lists every endpoint of the namespace (a dump).
func (p *PM) Endpoints() ([]Endpoint, error) {
	msgs, err := p.do(cmdGetAddr, netlink.Dump, nil)
	if err != nil {
		return nil, fmt.Errorf("mptcp pm: dump endpoints: %w", err)
	}
	eps, err := decodeEndpoints(msgs)
	if err != nil {
		return nil, fmt.Errorf("mptcp pm: dump endpoints: %w", err)
	}
	return eps, nil
}

// FlushEndpoints removes every endpoint of the namespace.
func (p *PM) FlushEndpoints() error {
	if _, err := p.do(cmdFlushAddrs, netlink.Acknowledge, nil); err != nil {
		return fmt.Errorf("mptcp pm: flush endpoints: %w", err)
	}
	return nil
}

// SetLimits sets both per-connection limits.
func (p *PM) SetLimits(l Limits) error {
	if l.Subflows > MaxLimit || l.AddAddrAccepted > MaxLimit {
		return fmt.Errorf("mptcp pm: limits subflows %d add_addr_accepted %d: each at most %d", l.Subflows, l.AddAddrAccepted, MaxLimit)
	}
	if _, err := p.do(cmdSetLimits, netlink.Acknowledge, func(ae *netlink.AttributeEncoder) {
		ae.Uint32(attrRcvAddAddrs, l.AddAddrAccepted)
		ae.Uint32(attrSubflows, l.Subflows)
	}); err != nil {
		return fmt.Errorf("mptcp pm: set limits subflows %d add_addr_accepted %d: %w", l.Subflows, l.AddAddrAccepted, err)
	}
	return nil
}

// Limits reads both per-connection limits.
func (p *PM) Limits() (Limits, error) {
	msgs, err := p.do(cmdGetLimits, 0, nil)
	if err != nil {
		return Limits{}, fmt.Errorf("mptcp pm: get limits: %w", err)
	}
	var l Limits
	for _, m := range msgs {
		ad, err := netlink.NewAttributeDecoder(m.Data)
		if err != nil {
			return Limits{}, fmt.Errorf("mptcp pm: get limits: %w", err)
		}
		for ad.Next() {
			switch ad.Type() {
			case attrRcvAddAddrs:
				l.AddAddrAccepted = ad.Uint32()
			case attrSubflows:
				l.Subflows = ad.Uint32()
			}
		}
		if err := ad.Err(); err != nil {
			return Limits{}, fmt.Errorf("mptcp pm: get limits: %w", err)
		}
	}
	return l, nil
}

func encodeEndpoint(ae *netlink.AttributeEncoder, e Endpoint) {
	a := e.Addr.Unmap()
	if e.ID != 0 {
		ae.Uint8(addrAttrID, e.ID)
	}
	if a.Is4() {
		ae.Uint16(addrAttrFamily, unix.AF_INET)
		b := a.As4()
		ae.Bytes(addrAttrAddr4, b[:])
	} else {
		ae.Uint16(addrAttrFamily, unix.AF_INET6)
		b := a.As16()
		ae.Bytes(addrAttrAddr6, b[:])
	}
	if e.Port != 0 {
		ae.Uint16(addrAttrPort, e.Port)
	}
	ae.Uint32(addrAttrFlags, uint32(e.Flags))
	if e.IfIndex != 0 {
		ae.Int32(addrAttrIfIndex, e.IfIndex)
	}
}

func decodeEndpoints(msgs []genetlink.Message) ([]Endpoint, error) {
	var out []Endpoint
	for _, m := range msgs {
		ad, err := netlink.NewAttributeDecoder(m.Data)
		if err != nil {
			return nil, err
		}
		for ad.Next() {
			if ad.Type() != attrAddr {
				continue
			}
			var e Endpoint
			ad.Nested(func(nad *netlink.AttributeDecoder) error {
				for nad.Next() {
					switch nad.Type() {
					case addrAttrID:
						e.ID = nad.Uint8()
					case addrAttrAddr4, addrAttrAddr6:
						if a, ok := netip.AddrFromSlice(nad.Bytes()); ok {
							e.Addr = a
						}
					case addrAttrPort:
						e.Port = nad.Uint16()
					case addrAttrFlags:
						e.Flags = Flags(nad.Uint32())
					case addrAttrIfIndex:
						e.IfIndex = nad.Int32()
					}
				}
				return nil
			})
			out = append(out, e)
		}
		if err := ad.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
