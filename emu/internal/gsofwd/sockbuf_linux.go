package gsofwd

import (
	"fmt"
	"os"
	"strconv"

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
func socketFDs() map[int]bool {
	out := map[int]bool{}
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
			out[fd] = true
		}
	}
	return out
}

// boundUDP returns the IPv4 UDP socket bound to port among the
// descriptors that are in after but not in before. The library opens its
// sockets without a way to reach them, so they are found by what opening
// them added.
func boundUDP(before, after map[int]bool, port uint16) (int, error) {
	for fd := range after {
		if before[fd] {
			continue
		}
		if t, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || t != unix.SOCK_DGRAM {
			continue
		}
		sa, err := unix.Getsockname(fd)
		if err != nil {
			continue
		}
		if a, ok := sa.(*unix.SockaddrInet4); ok && a.Port == int(port) {
			return fd, nil
		}
	}
	return -1, fmt.Errorf("gsofwd: no IPv4 UDP socket on port %d among the library's", port)
}

// growReceiveBuffer gives the socket fd a receive buffer of receiveBuffer
// bytes. A failure leaves the library's 7 MiB, which works at lower rates.
func growReceiveBuffer(fd int) {
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, receiveBuffer)
}
