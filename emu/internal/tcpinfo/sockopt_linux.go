//go:build linux

package tcpinfo

import (
	"fmt"
	"syscall"
)

// SockoptReader runs a read of socket options on the socket behind a
// RawConn without allocating: the function RawConn.Control calls is built
// once, and read's error is carried out of it in the reader. Reader and
// mptcp.Reader read through one. It belongs to one goroutine.
type SockoptReader struct {
	rc   syscall.RawConn
	what string // names the option in Control's errors
	err  error
	f    func(fd uintptr) // built once: a closure made per call would escape to the heap
}

// NewSockoptReader makes a SockoptReader that calls read with the socket's
// descriptor; what names the option ("tcp_info") in the errors of Control.
func NewSockoptReader(rc syscall.RawConn, what string, read func(fd int) error) *SockoptReader {
	r := &SockoptReader{rc: rc, what: what}
	r.f = func(fd uintptr) { r.err = read(int(fd)) }
	return r
}

// Read calls read on the socket and returns its error, or Control's (the
// socket is closed) prefixed with what.
func (r *SockoptReader) Read() error {
	if err := r.rc.Control(r.f); err != nil {
		return fmt.Errorf("%s: %w", r.what, err)
	}
	return r.err
}
