package gsofwd

import (
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// receiveBuffer is the receive buffer of a proxy's UDP socket. The
// library asks for 7 MiB, 24 ms of 2.3 Gbit/s: a receive loop that waits
// that long for a CPU (the delay lines' real-time threads come first on
// a 2-core machine) overflowed it, 23 GRO batches and 555 COUNTs given up
// in 5 s of iperf3 over 2 × 6 Gbit/s with 1 ms. 64 MiB holds over 200 ms
// at that rate; memory is charged only while datagrams wait.
const receiveBuffer = 64 << 20

// socketFDs returns the process's descriptors that are sockets.
func socketFDs() []int {
	var out []int
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return out
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFSOCK {
			out = append(out, fd)
		}
	}
	return out
}

// boundUDP returns the process's IPv4 UDP socket bound to port in the
// calling thread's network namespace. The library opens its sockets
// without a way to reach them, so the socket is found by what it is: its
// port, and its namespace's cookie (SO_NETNS_COOKIE) against that of a
// socket made here. Every proxy binds the same port, one per namespace,
// and two runs of one process (emu sweep --jobs) open theirs at once: a
// socket found by what an Open added to the descriptor table (as this once
// was) could be the other run's, whose PDUs this proxy then read (a run's
// QUIC handshake timed out), or be missed where a descriptor closed
// meanwhile was reused.
func boundUDP(port uint16) (int, error) {
	here, err := threadNetnsCookie()
	if err != nil {
		return -1, err
	}
	for _, fd := range socketFDs() {
		if t, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || t != unix.SOCK_DGRAM {
			continue
		}
		sa, err := unix.Getsockname(fd)
		if err != nil {
			continue
		}
		if a, ok := sa.(*unix.SockaddrInet4); !ok || a.Port != int(port) {
			continue
		}
		if c, err := netnsCookie(fd); err == nil && c == here {
			return fd, nil
		}
	}
	return -1, fmt.Errorf("gsofwd: no IPv4 UDP socket on port %d among the library's", port)
}

// threadNetnsCookie is the cookie of the calling thread's network
// namespace, read from a socket made for the purpose.
func threadNetnsCookie() (uint64, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("gsofwd: probe socket: %w", err)
	}
	defer unix.Close(fd)
	return netnsCookie(fd)
}

// netnsCookie is the cookie of the network namespace socket fd lives in
// (Linux 5.14 and later).
func netnsCookie(fd int) (uint64, error) {
	var c uint64
	l := uint32(unsafe.Sizeof(c))
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_NETNS_COOKIE,
		uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&l)), 0)
	if e != 0 {
		return 0, fmt.Errorf("gsofwd: SO_NETNS_COOKIE: %w", e)
	}
	return c, nil
}

// growReceiveBuffer gives the socket fd a receive buffer of receiveBuffer
// bytes. A failure leaves the library's 7 MiB, which works at lower rates.
func growReceiveBuffer(fd int) {
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, receiveBuffer)
}
