//go:build !linux

package tcpinfo

import (
	"errors"
	"syscall"
)

var errNotLinux = errors.New("tcpinfo: TCP_INFO needs Linux")

// Reader fails everywhere but Linux.
type Reader struct{}

// NewReader returns a Reader whose Read fails.
func NewReader(rc syscall.RawConn) *Reader { return &Reader{} }

// Read fails: TCP_INFO is read on Linux only.
func (r *Reader) Read() (Info, error) { return Info{}, errNotLinux }

// Get fails: TCP_INFO is read on Linux only.
func Get(fd int, buf []byte) (uint32, error) { return 0, errNotLinux }
