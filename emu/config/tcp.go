package config

import (
	"fmt"

	"github.com/dc-emu/emu/emu/units"
)

// The range of tcp.buffer_max: below 1 MB it would shrink the kernel's
// own maximum rather than raise it, and beyond 1 GB one socket could
// take more memory than the host has.
const (
	tcpBufferMin = 1e6
	tcpBufferTop = 1e9
)

// tcpParams are the tcp.* keys: what every namespace of the run gives a
// kernel TCP socket.
func tcpParams() []Param {
	return []Param{
		sizeField("buffer_max", "largest send and receive buffer TCP's autotuning may give a socket in the run's namespaces "+
			"(the maximum of net.ipv4.tcp_wmem and tcp_rmem; 0 = the kernel's, 4 MiB to send: about 3 MB in flight, under a 500 ms path's BDP at 50 Mbit/s)",
			func(c *Config) *int64 { return &c.TCPBufferMax }).param("tcp.", self),
	}
}

// validateTCP checks the tcp.* keys.
func (c *Config) validateTCP() []error {
	if b := c.TCPBufferMax; b != 0 && (b < tcpBufferMin || b > tcpBufferTop) {
		return []error{fmt.Errorf("tcp.buffer_max: want 0 (the kernel's) or %s to %s (got %s)",
			units.FormatSize(tcpBufferMin), units.FormatSize(tcpBufferTop), units.FormatSize(b))}
	}
	return nil
}
