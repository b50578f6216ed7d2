package record

import (
	"encoding/binary"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// socketBuffer is what each UDP socket asks for each way: a second of a
// 500 Mbit/s stream, so a receiver held off its CPU for a moment does not
// turn the host's delay into the path's loss.
const socketBuffer = 32 << 20

// prepareUDP asks for kernel receive timestamps and large buffers.
func prepareUDP(c *net.UDPConn) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		if serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); serr != nil {
			return
		}
		for _, o := range [][2]int{{unix.SO_RCVBUFFORCE, unix.SO_RCVBUF}, {unix.SO_SNDBUFFORCE, unix.SO_SNDBUF}} {
			// As root the forced size; as a user what net.core.*mem_max allows.
			if unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, o[0], socketBuffer) != nil {
				unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, o[1], socketBuffer)
			}
		}
	})
	if err == nil {
		err = serr
	}
	return err
}

// stamp is the kernel's receive time from a datagram's control messages,
// or now if it gave none.
func stamp(oob []byte) int64 {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err == nil {
		for _, m := range msgs {
			if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
				// struct timespec of a 64-bit kernel ABI: seconds, nanoseconds.
				sec := int64(binary.NativeEndian.Uint64(m.Data))
				nsec := int64(binary.NativeEndian.Uint64(m.Data[8:]))
				return sec*1e9 + nsec
			}
		}
	}
	return time.Now().UnixNano()
}

// bindToDevice keeps a socket's traffic on one interface (--via IFACE).
func bindToDevice(fd uintptr, dev string) error { return unix.BindToDevice(int(fd), dev) }
