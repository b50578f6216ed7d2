package gsofwd

import (
	"fmt"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// A SocketQueue reads how many bytes wait in a UDP socket's receive queue,
// as ss's Recv-Q does (sock_diag). SO_MEMINFO's rmem_alloc will not do:
// UDP frees the memory of datagrams already read in batches of up to a
// quarter of the receive buffer, which with the proxies' 64 MiB buffer
// counts up to 32 MiB that no longer wait; the diagnostics subtract it.
// The figure is kernel memory still, the data and its buffers' overhead.
type SocketQueue struct {
	h    *netlink.Handle // a sock_diag socket in the socket's namespace
	port uint16
}

// OpenSocketQueue watches the IPv4 UDP socket bound to port in the
// network namespace ns (a descriptor).
func OpenSocketQueue(ns int, port uint16) (*SocketQueue, error) {
	h, err := netlink.NewHandleAt(netns.NsHandle(ns), unix.NETLINK_INET_DIAG)
	if err != nil {
		return nil, fmt.Errorf("gsofwd: sock_diag: %w", err)
	}
	return &SocketQueue{h: h, port: port}, nil
}

// Queued returns the bytes waiting in the socket's receive queue. It
// allocates (the library's dump), once a look.
func (q *SocketQueue) Queued() (int, error) {
	socks, err := q.h.SocketDiagUDP(unix.AF_INET)
	if err != nil {
		return 0, fmt.Errorf("gsofwd: sock_diag: %w", err)
	}
	for _, s := range socks {
		if s.ID.SourcePort == q.port {
			return int(s.RQueue), nil
		}
	}
	return 0, fmt.Errorf("gsofwd: sock_diag: no UDP socket on port %d", q.port)
}

// Close releases the diagnostics socket.
func (q *SocketQueue) Close() { q.h.Close() }
