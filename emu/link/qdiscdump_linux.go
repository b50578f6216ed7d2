package link

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/topo"
)

// qdiscDumper dumps the qdiscs of one namespace over a netlink socket of
// its own, opened in that namespace, with buffers reused from dump to dump:
// a dump allocates nothing.
type qdiscDumper struct {
	node *topo.NodeNS
	fd   int
	seq  uint32
	req  [nlmsgHdrLen + tcmsgLen]byte
	buf  []byte
}

func openQdiscDumper(node *topo.NodeNS) (*qdiscDumper, error) {
	q := &qdiscDumper{node: node, fd: -1, buf: make([]byte, 64<<10)}
	err := node.Do(func() error {
		fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
		if err != nil {
			return err
		}
		q.fd = fd
		return unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
	})
	if err == nil {
		// A reply that never comes must not hang the sampler.
		err = unix.SetsockoptTimeval(q.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 1})
	}
	if err != nil {
		q.close()
		return nil, fmt.Errorf("%s: qdisc dump socket: %w", node.NSName, err)
	}
	return q, nil
}

// dump reads the root qdiscs with the given handle on the interfaces
// ifindex into out (found marks those the dump had).
func (q *qdiscDumper) dump(handle uint32, ifindex []int, out []qdiscCounts) error {
	clear(out)
	q.seq++
	n := qdiscDumpRequest(q.req[:], q.seq)
	if _, err := unix.Write(q.fd, q.req[:n]); err != nil {
		return fmt.Errorf("%s: qdisc dump: %w", q.node.NSName, err)
	}
	for {
		n, err := unix.Read(q.fd, q.buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: qdisc dump: %w", q.node.NSName, err)
		}
		done, err := parseQdiscDump(q.buf[:n], q.seq, handle, ifindex, out)
		if err != nil {
			return fmt.Errorf("%s: %w", q.node.NSName, err)
		}
		if done {
			return nil
		}
	}
}

func (q *qdiscDumper) close() {
	if q.fd >= 0 {
		unix.Close(q.fd)
		q.fd = -1
	}
}
