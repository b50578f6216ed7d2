//go:build linux

package endpoint

import (
	"net"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// cbrOOBSize holds one SCM_TIMESTAMPNS control message.
var cbrOOBSize = unix.CmsgSpace(16)

// enableRxTimestamps asks the kernel for each datagram's receive time
// (SO_TIMESTAMPNS, CLOCK_REALTIME: the clock the send stamps use), so a
// receiver the scheduler wakes late still gets the arrival time.
func enableRxTimestamps(c *net.UDPConn) error {
	return withFD(c, func(fd int) error {
		return unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	})
}

// rxTime is the receive time in a datagram's control messages; ok is
// false when there is none. It does not allocate.
func rxTime(oob []byte) (time.Time, bool) {
	for len(oob) >= unix.CmsgSpace(0) {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(h.Len)
		if l < unix.CmsgLen(0) || l > len(oob) {
			return time.Time{}, false
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS && l >= unix.CmsgLen(16) {
			ts := (*unix.Timespec)(unsafe.Pointer(&oob[unix.CmsgLen(0)]))
			return time.Unix(ts.Sec, ts.Nsec), true
		}
		oob = oob[min(unix.CmsgSpace(l-unix.CmsgLen(0)), len(oob)):]
	}
	return time.Time{}, false
}
