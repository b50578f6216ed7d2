//go:build linux

package mptcp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// Diag looks up single TCP sockets, MPTCP subflows included, over
// NETLINK_SOCK_DIAG: the only view of a subflow's own congestion control,
// since user space holds no descriptor of a subflow. It is safe for use by
// one goroutine at a time.
type Diag struct {
	c *netlink.Conn
}

// OpenDiag opens a sock_diag socket in namespace nsFd; 0 means the
// namespace of the calling thread (open it where the sockets were made).
func OpenDiag(nsFd int) (*Diag, error) {
	c, err := netlink.Dial(unix.NETLINK_SOCK_DIAG, &netlink.Config{NetNS: nsFd})
	if err != nil {
		return nil, fmt.Errorf("sock_diag: %w", err)
	}
	return &Diag{c: c}, nil
}

// Close releases the socket.
func (d *Diag) Close() error { return d.c.Close() }

const (
	sockDiagByFamily = 20 // SOCK_DIAG_BY_FAMILY
	inetDiagCong     = 4  // INET_DIAG_CONG: the congestion control's name
	inetDiagMsgSize  = 72 // struct inet_diag_msg
)

// Congestion returns the congestion control of the TCP socket (or MPTCP
// subflow) with these addresses, local being this namespace's side.
func (d *Diag) Congestion(local, remote netip.AddrPort) (string, error) {
	la, ra := local.Addr().Unmap(), remote.Addr().Unmap()
	if la.Is4() != ra.Is4() {
		return "", fmt.Errorf("sock_diag %s → %s: mixed address families", local, remote)
	}
	// struct inet_diag_req_v2 with an exact struct inet_diag_sockid.
	req := make([]byte, 56)
	req[0] = unix.AF_INET6
	if la.Is4() {
		req[0] = unix.AF_INET
	}
	req[1] = unix.IPPROTO_TCP
	req[2] = 1 << (inetDiagCong - 1)
	binary.NativeEndian.PutUint32(req[4:], ^uint32(0)) // every state
	binary.BigEndian.PutUint16(req[8:], local.Port())
	binary.BigEndian.PutUint16(req[10:], remote.Port())
	putAddr(req[12:28], la)
	putAddr(req[28:44], ra)
	binary.NativeEndian.PutUint32(req[48:], ^uint32(0)) // INET_DIAG_NOCOOKIE
	binary.NativeEndian.PutUint32(req[52:], ^uint32(0))
	msgs, err := d.c.Execute(netlink.Message{Header: netlink.Header{Type: sockDiagByFamily, Flags: netlink.Request}, Data: req})
	if err != nil {
		return "", fmt.Errorf("sock_diag %s → %s: %w", local, remote, err)
	}
	for _, m := range msgs {
		if len(m.Data) < inetDiagMsgSize {
			continue
		}
		ad, err := netlink.NewAttributeDecoder(m.Data[inetDiagMsgSize:])
		if err != nil {
			return "", fmt.Errorf("sock_diag %s → %s: %w", local, remote, err)
		}
		for ad.Next() {
			if ad.Type() == inetDiagCong {
				return string(bytes.TrimRight(ad.Bytes(), "\x00")), nil
			}
		}
	}
	return "", fmt.Errorf("sock_diag %s → %s: %w", local, remote, errNoCong)
}

var errNoCong = errors.New("no congestion control in the answer")

func putAddr(b []byte, a netip.Addr) {
	if a.Is4() {
		v := a.As4()
		copy(b, v[:])
		return
	}
	v := a.As16()
	copy(b, v[:])
}
