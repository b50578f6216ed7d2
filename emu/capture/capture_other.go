//go:build !linux

package capture

import (
	"context"
	"errors"
)

// ErrNotLinux is what Start returns where there is no AF_PACKET.
var ErrNotLinux = errors.New("capture: needs Linux (AF_PACKET)")

// MaxSnaplen is the largest snap length (that of tcpdump).
const MaxSnaplen = 262144

// Capture is a running capture; elsewhere than on Linux there is none.
type Capture struct{}

// Start fails: packet capture needs Linux.
func Start(ctx context.Context, netnsFD int, iface string, snaplen int, path string) (*Capture, error) {
	return nil, ErrNotLinux
}

// Close returns no counts.
func (c *Capture) Close() (Stats, error) { return Stats{}, ErrNotLinux }
