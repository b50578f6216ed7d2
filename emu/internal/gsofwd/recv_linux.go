package gsofwd

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A UDPReceiver reads a gateway's datagrams from its UDP socket: one
// recvmmsg of UDP_GRO buffers, each split into its datagrams. The
// library's receive function allocates an endpoint for every datagram it
// returns (a quarter of a million a second at 3 Gbit/s), and the proxies
// need none, so the socket it opened is read here instead, through a
// descriptor of its own, with nothing allocated per read.
type UDPReceiver struct {
	f  *os.File
	rc syscall.RawConn

	hdrs   []mmsghdr
	iovs   []unix.Iovec
	gro    [][]byte // a GRO buffer per message
	ctl    [][]byte // its control messages
	got    int      // messages the last recvmmsg filled
	errno  error    // the last recvmmsg's error
	readFn func(fd uintptr) bool
	// received counts the bytes of the datagrams read.
	received atomic.Uint64
}

// mmsghdr is struct mmsghdr: the kernel pads it to the alignment of its
// msghdr, as Go does.
type mmsghdr struct {
	hdr unix.Msghdr
	len uint32
}

// groMaxSegments is the most datagrams the kernel coalesces into one
// UDP_GRO buffer (UDP_GRO_CNT_MAX).
const groMaxSegments = 64

// controlLen holds a buffer's control messages: UDP_GRO's segment size
// and the IP_PKTINFO the library asks for, with room to spare; a
// truncated one is an error, not a guess.
const controlLen = 256

// newUDPReceiver reads the socket fd (which it duplicates: the caller
// keeps fd) in recvmmsg calls of up to maxDatagrams/groMaxSegments GRO
// buffers, so that one read never brings more datagrams than maxDatagrams.
func newUDPReceiver(fd, maxDatagrams int) (*UDPReceiver, error) {
	if maxDatagrams < groMaxSegments {
		return nil, fmt.Errorf("gsofwd: a read of %d datagrams cannot take a GRO buffer of %d", maxDatagrams, groMaxSegments)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_UDP, unix.UDP_GRO, 1); err != nil {
		return nil, fmt.Errorf("gsofwd: UDP_GRO: %w", err)
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("gsofwd: dup UDP socket: %w", err)
	}
	// The library's socket is non-blocking, and so is the duplicate (they
	// share the flag): the file polls through the runtime.
	r := &UDPReceiver{f: os.NewFile(uintptr(dup), "gsofwd-udp")}
	if r.rc, err = r.f.SyscallConn(); err != nil {
		r.f.Close()
		return nil, err
	}
	m := maxDatagrams / groMaxSegments
	r.hdrs, r.iovs, r.gro, r.ctl = make([]mmsghdr, m), make([]unix.Iovec, m), make([][]byte, m), make([][]byte, m)
	for i := range m {
		r.gro[i], r.ctl[i] = make([]byte, 65535), make([]byte, controlLen)
		r.iovs[i].Base = &r.gro[i][0]
		r.hdrs[i].hdr.Iov = &r.iovs[i]
		r.hdrs[i].hdr.SetIovlen(1)
		r.hdrs[i].hdr.Control = &r.ctl[i][0]
	}
	r.readFn = r.recvmmsg
	return r, nil
}

// Read waits for datagrams and copies each into bufs[i][offset:], its
// length in sizes[i]; it returns how many. After Close it returns
// os.ErrClosed.
func (r *UDPReceiver) Read(bufs [][]byte, sizes []int, offset int) (int, error) {
	if len(bufs) < len(r.hdrs)*groMaxSegments {
		return 0, fmt.Errorf("gsofwd: %d buffers for a read of up to %d datagrams", len(bufs), len(r.hdrs)*groMaxSegments)
	}
	if err := r.rc.Read(r.readFn); err != nil {
		return 0, err
	}
	if r.errno != nil {
		return 0, fmt.Errorf("gsofwd: recvmmsg: %w", r.errno)
	}
	n := 0
	for i := range r.got {
		h := &r.hdrs[i]
		if h.hdr.Flags&unix.MSG_CTRUNC != 0 {
			return 0, errors.New("gsofwd: recvmmsg: control messages truncated")
		}
		seg, err := segmentSize(r.ctl[i][:h.hdr.Controllen])
		if err != nil {
			return 0, err
		}
		data := r.gro[i][:h.len]
		r.received.Add(uint64(h.len))
		if seg == 0 {
			seg = len(data)
		}
		for len(data) > 0 {
			if n == len(bufs) {
				return 0, errors.New("gsofwd: recvmmsg: more datagrams than buffers")
			}
			m := min(seg, len(data))
			sizes[n] = copy(bufs[n][offset:], data[:m])
			data = data[m:]
			n++
		}
	}
	return n, nil
}

// Received returns the bytes of the datagrams read so far; any goroutine
// may call it.
func (r *UDPReceiver) Received() uint64 { return r.received.Load() }

// File is the receiver's descriptor, for an RTLoop to poll.
func (r *UDPReceiver) File() *os.File { return r.f }

// Close releases the receiver's descriptor; a Read waiting returns.
func (r *UDPReceiver) Close() error { return r.f.Close() }

// recvmmsg is the RawConn read callback: false asks the runtime to wait
// until the socket is readable.
func (r *UDPReceiver) recvmmsg(fd uintptr) bool {
	for i := range r.hdrs {
		r.iovs[i].SetLen(len(r.gro[i]))
		r.hdrs[i].hdr.SetControllen(len(r.ctl[i]))
		r.hdrs[i].hdr.Flags = 0
		r.hdrs[i].len = 0
	}
	n, _, e := unix.Syscall6(unix.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&r.hdrs[0])), uintptr(len(r.hdrs)), unix.MSG_DONTWAIT, 0, 0)
	switch {
	case e == unix.EAGAIN || e == unix.EINTR:
		return false
	case e != 0:
		r.got, r.errno = 0, e
	default:
		r.got, r.errno = int(n), nil
	}
	return true
}

// segmentSize returns a GRO buffer's segment size from its control
// messages: 0 when it holds one datagram.
func segmentSize(ctl []byte) (int, error) {
	for len(ctl) >= unix.SizeofCmsghdr {
		h, data, rest, err := unix.ParseOneSocketControlMessage(ctl)
		if err != nil {
			return 0, fmt.Errorf("gsofwd: control message: %w", err)
		}
		if h.Level == unix.SOL_UDP && h.Type == unix.UDP_GRO && len(data) >= 2 {
			return int(*(*uint16)(unsafe.Pointer(&data[0]))), nil
		}
		ctl = rest
	}
	return 0, nil
}
