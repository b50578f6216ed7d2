package endpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A child's UDP socket, reached from outside it.
//
// gtlsclient has no option for its socket's receive buffer, and
// net.core.rmem_default is one value for the whole host (a namespace may
// only read it), so its socket kept 212,992 B whatever --rcvbuf said: a
// 100 MB DC download at 38 Mbit/s overflowed it 55-178 times (the client
// namespace's Udp RcvbufErrors, each a packet the server then declared
// lost), while the quic-go client had 16 MiB. pidfd_getfd(2) gives this
// process a descriptor of the child's socket, the same socket, on which
// SO_RCVBUFFORCE works as on its own.

const (
	// childSocketPoll is how often the child's descriptors are listed until
	// its UDP socket appears: gtlsclient opens it about 10 ms after exec
	// and sends its Initial at once, but the download's first full flight
	// comes a round trip later.
	childSocketPoll = time.Millisecond
	// childSocketWait bounds that wait.
	childSocketWait = 2 * time.Second
)

// childRcvBuf waits for the child to open its UDP sockets and, with n > 0,
// gives each a receive buffer of n bytes (SO_RCVBUFFORCE: the kernel
// reports 2n). It returns the buffer size the kernel reports.
func childRcvBuf(ctx context.Context, ch *child, n int) (int, error) {
	pid := ch.cmd.Process.Pid
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return 0, fmt.Errorf("pidfd_open %s: %w", ch.name, err)
	}
	defer unix.Close(pidfd)
	wait, cancel := context.WithTimeout(ctx, childSocketWait)
	defer cancel()
	t := time.NewTicker(childSocketPoll)
	defer t.Stop()
	for {
		got, err := udpRcvBufs(pid, pidfd, n)
		if err != nil || got > 0 {
			return got, err
		}
		select {
		case <-wait.Done():
			if ctx.Err() != nil {
				return 0, fmt.Errorf("%w: %w", errInterrupted, context.Cause(ctx))
			}
			return 0, fmt.Errorf("%s opened no UDP socket within %v", ch.name, childSocketWait)
		case <-ch.done:
			return 0, fmt.Errorf("%s exited before it opened a UDP socket", ch.name)
		case <-t.C:
		}
	}
}

// udpRcvBufs does childRcvBuf's work on the sockets pid has now; 0 means
// it has no UDP socket yet.
func udpRcvBufs(pid, pidfd, n int) (int, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("child's descriptors: %w", err)
	}
	got := 0
	for _, e := range entries {
		target, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if link, err := os.Readlink(filepath.Join(dir, e.Name())); err != nil || !strings.HasPrefix(link, "socket:") {
			continue
		}
		fd, err := unix.PidfdGetfd(pidfd, target, 0)
		if errors.Is(err, unix.EBADF) {
			continue // closed since it was listed
		}
		if err != nil {
			return 0, fmt.Errorf("pidfd_getfd: %w", err)
		}
		size, err := udpRcvBuf(fd, n)
		unix.Close(fd)
		if err != nil {
			return 0, err
		}
		got = max(got, size)
	}
	return got, nil
}

// udpRcvBuf sets (n > 0) and reads the receive buffer of fd if it is an
// IP datagram socket; other sockets give 0.
func udpRcvBuf(fd, n int) (int, error) {
	if typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || typ != unix.SOCK_DGRAM {
		return 0, nil
	}
	if dom, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN); err != nil || (dom != unix.AF_INET && dom != unix.AF_INET6) {
		return 0, nil
	}
	if n > 0 {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, n); err != nil {
			return 0, fmt.Errorf("setsockopt SO_RCVBUFFORCE %d (needs CAP_NET_ADMIN): %w", n, err)
		}
	}
	got, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF)
	if err != nil {
		return 0, fmt.Errorf("getsockopt SO_RCVBUF: %w", err)
	}
	if n > 0 && got < n {
		return 0, fmt.Errorf("asked for %d bytes, the kernel reports %d", n, got)
	}
	return got, nil
}
