//go:build linux

package endpoint

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// setCongestion sets TCP_CONGESTION on a TCP socket (cc empty: leave the
// kernel default) and returns what the kernel reports afterwards, failing
// if that is not what was asked for.
func setCongestion(fd int, cc string) (string, error) {
	if cc != "" {
		if err := unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, cc); err != nil {
			return "", fmt.Errorf("setsockopt TCP_CONGESTION %q: %w (this kernel offers: %s)", cc, err, availableCC())
		}
	}
	got, err := unix.GetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION)
	if err != nil {
		return "", fmt.Errorf("getsockopt TCP_CONGESTION: %w", err)
	}
	if cc != "" && got != cc {
		return "", fmt.Errorf("TCP_CONGESTION: asked for %q, the kernel reports %q", cc, got)
	}
	return got, nil
}

// setNotSentLowat sets TCP_NOTSENT_LOWAT (n < 0: leave the kernel's) and
// checks that the kernel took it.
func setNotSentLowat(fd, n int) error {
	if n < 0 {
		return nil
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, n); err != nil {
		return fmt.Errorf("setsockopt TCP_NOTSENT_LOWAT %d: %w", n, err)
	}
	got, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT)
	if err != nil {
		return fmt.Errorf("getsockopt TCP_NOTSENT_LOWAT: %w", err)
	}
	if got != n {
		return fmt.Errorf("TCP_NOTSENT_LOWAT: set %d, the kernel reports %d", n, got)
	}
	return nil
}

// availableCC lists the congestion controls the kernel has loaded.
func availableCC() string {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_available_congestion_control")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(b))
}

// withFD runs f on the file descriptor of c.
func withFD(c syscall.Conn, f func(fd int) error) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// rcvBuf is the socket's receive buffer as the kernel reports it (twice
// the value set, for its bookkeeping overhead).
func rcvBuf(c syscall.Conn) (int, error) {
	var n int
	err := withFD(c, func(fd int) error {
		var err error
		n, err = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("getsockopt SO_RCVBUF: %w", err)
	}
	return n, nil
}

// setRcvBuf sets the receive buffer to n (the kernel reports 2n), with
// SO_RCVBUFFORCE so net.core.rmem_max does not cap it; without
// CAP_NET_ADMIN it falls back to SO_RCVBUF when allowForceless.
func setRcvBuf(c syscall.Conn, n int, allowForceless bool) error {
	return withFD(c, func(fd int) error {
		err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, n)
		if errors.Is(err, unix.EPERM) && allowForceless {
			err = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, n)
		}
		if err != nil {
			return fmt.Errorf("setsockopt SO_RCVBUFFORCE %d: %w", n, err)
		}
		return nil
	})
}

// childAttr puts a child in its own process group (so the whole group can
// be killed) and has the kernel kill it if the thread that started it dies.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup sends sig to the process group led by pid.
func killGroup(pid int, sig syscall.Signal) error {
	return syscall.Kill(-pid, sig)
}

// punchHole frees the blocks of [0, n) of f; its size stays.
func punchHole(f *os.File, n int64) error {
	if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 0, n); err != nil {
		return fmt.Errorf("punch hole in %s: %w", f.Name(), err)
	}
	return nil
}

// waitWritable blocks until poll reports the socket writable (with
// TCP_NOTSENT_LOWAT: less than half the low-water mark unsent, tcp_poll),
// unless what is unsent would drain within maxStampLag at the socket's
// delivery rate: then a stamp taken now is off by less than that, and
// waiting would only cost throughput (the handler's wake-up, the HTTP/2
// hand-off and the TLS encryption take longer than 8 KiB last at a few
// hundred Mbit/s, so the socket would run dry). The runtime's poller does
// the waiting, so no thread blocks.
func waitWritable(rc syscall.RawConn) {
	rc.Write(func(fd uintptr) bool {
		p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		if n, err := unix.Poll(p, 0); err != nil || n > 0 {
			return true // writable (a failed poll must not wait forever)
		}
		ti, err := unix.GetsockoptTCPInfo(int(fd), unix.SOL_TCP, unix.TCP_INFO)
		if err != nil || ti.Delivery_rate == 0 {
			return false
		}
		return time.Duration(float64(ti.Notsent_bytes)/float64(ti.Delivery_rate)*1e9) < maxStampLag
	})
}

// maxStampLag is the largest error waitWritable leaves in a send stamp.
const maxStampLag = time.Millisecond
