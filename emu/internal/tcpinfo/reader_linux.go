//go:build linux

package tcpinfo

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Reader reads tcp_info from one socket into a buffer it owns, so a sample
// costs one getsockopt and no allocation. It belongs to one goroutine.
type Reader struct {
	so  *SockoptReader
	buf [Size]byte
	n   uint32
}

// NewReader reads from the socket behind rc (e.g. from
// (*net.TCPConn).SyscallConn).
func NewReader(rc syscall.RawConn) *Reader {
	r := &Reader{}
	r.so = NewSockoptReader(rc, "tcp_info", func(fd int) (err error) {
		r.n, err = Get(fd, r.buf[:])
		return err
	})
	return r
}

// Read takes one sample. It fails when the socket is closed.
func (r *Reader) Read() (Info, error) {
	if err := r.so.Read(); err != nil {
		return Info{}, err
	}
	return Decode(r.buf[:r.n]), nil
}

// Get fills buf with the tcp_info of socket fd and returns the number of
// bytes the kernel wrote.
func Get(fd int, buf []byte) (uint32, error) {
	n := uint32(len(buf))
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, unix.TCP_INFO,
		uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(unsafe.Pointer(&n)), 0)
	if e != 0 {
		return 0, fmt.Errorf("getsockopt TCP_INFO: %w", e)
	}
	return n, nil
}
