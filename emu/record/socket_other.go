//go:build !linux

package record

import (
	"errors"
	"net"
	"time"
)

// prepareUDP leaves the socket as it is: the kernel's receive stamps
// and forced buffer sizes are Linux's; elsewhere a datagram is stamped
// when it is read, a little later.
func prepareUDP(*net.UDPConn) error { return nil }

// stamp is the time the datagram was read.
func stamp([]byte) int64 { return time.Now().UnixNano() }

// bindToDevice is Linux's (SO_BINDTODEVICE): elsewhere --via takes an
// address.
func bindToDevice(uintptr, string) error {
	return errors.New("--via with an interface name needs Linux; give the interface's address")
}
