//go:build linux

package mptcp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/tcpinfo"
)

// Socket options of SOL_MPTCP (include/uapi/linux/mptcp.h).
const (
	optInfo         = 1 // struct mptcp_info
	optTCPInfo      = 2 // mptcp_subflow_data + tcp_info[]
	optSubflowAddrs = 3 // mptcp_subflow_data + mptcp_subflow_addrs[]
	optFullInfo     = 4 // mptcp_full_info with user pointers (Linux 6.6+)
)

// subflowDataSize is sizeof(struct mptcp_subflow_data), the header of the
// MPTCP_TCPINFO and MPTCP_SUBFLOW_ADDRS answers.
const subflowDataSize = 16

// fullInfoSize is sizeof(struct mptcp_full_info): six u32, two u64 user
// pointers, then struct mptcp_info.
const fullInfoSize = 40 + infoSize

// subflowInfoSize is sizeof(struct mptcp_subflow_info): the id, padding to
// the sockaddr_storage alignment, then mptcp_subflow_addrs.
const subflowInfoSize = 8 + subflowAddrsSize

// ErrNotMPTCP is returned by Reader.Read for a socket that is not an MPTCP
// socket (the kernel refuses SOL_MPTCP: EOPNOTSUPP).
var ErrNotMPTCP = errors.New("not an MPTCP socket")

// Snapshot is one reading of an MPTCP connection. Subflows is owned by the
// Reader and valid until its next Read.
type Snapshot struct {
	Info     Info
	Subflows []Subflow
}

// Reader reads an MPTCP socket's connection state and every subflow's
// addresses and tcp_info into buffers it owns: a Read costs one getsockopt
// (MPTCP_FULL_INFO; three on kernels without it) and no allocation. It
// belongs to one goroutine.
type Reader struct {
	so  *tcpinfo.SockoptReader
	max int
	// legacy reads with MPTCP_INFO + MPTCP_TCPINFO + MPTCP_SUBFLOW_ADDRS.
	legacy bool

	full     [fullInfoSize]byte
	sfinfo   []byte // max × subflowInfoSize (FULL_INFO) or the SUBFLOW_ADDRS answer
	tcp      []byte // max × tcpinfo.Size, or the MPTCP_TCPINFO answer
	subflows []Subflow
}

// NewReader reads the socket behind rc, reporting at most maxSubflows
// subflows (the kernel's limit is 8 per connection; 0 means 8).
func NewReader(rc syscall.RawConn, maxSubflows int) *Reader {
	if maxSubflows <= 0 {
		maxSubflows = 8
	}
	r := &Reader{max: maxSubflows,
		sfinfo:   make([]byte, subflowDataSize+maxSubflows*subflowInfoSize),
		tcp:      make([]byte, subflowDataSize+maxSubflows*tcpinfo.Size),
		subflows: make([]Subflow, 0, maxSubflows)}
	r.so = tcpinfo.NewSockoptReader(rc, "mptcp", r.readFD)
	return r
}

// Read takes one snapshot.
func (r *Reader) Read() (Snapshot, error) {
	if err := r.so.Read(); err != nil {
		return Snapshot{}, err
	}
	return Snapshot{Info: decodeInfo(r.full[40:]), Subflows: r.subflows}, nil
}

func (r *Reader) readFD(fd int) error {
	r.subflows = r.subflows[:0]
	if !r.legacy {
		err := r.readFull(fd)
		if !errors.Is(err, ErrNotMPTCP) || !r.legacyWorks(fd) {
			return err
		}
		r.legacy = true // an MPTCP socket on a kernel without MPTCP_FULL_INFO
	}
	return r.readLegacy(fd)
}

// legacyWorks tells a kernel without MPTCP_FULL_INFO from a socket that is
// not MPTCP at all (both answer EOPNOTSUPP to MPTCP_FULL_INFO).
func (r *Reader) legacyWorks(fd int) bool {
	_, err := getsockopt(fd, optInfo, r.full[40:])
	return err == nil
}

func (r *Reader) readFull(fd int) error {
	ne := binary.NativeEndian
	h := r.full[:40]
	clear(h)
	ne.PutUint32(h[4:], tcpinfo.Size)     // size_tcpinfo_user
	ne.PutUint32(h[12:], subflowInfoSize) // size_sfinfo_user
	ne.PutUint32(h[20:], uint32(r.max))   // size_arrays_user
	// The kernel writes through these addresses. r's buffers are on the
	// heap, which Go never moves, and r keeps them alive.
	ne.PutUint64(h[24:], uint64(uintptr(unsafe.Pointer(unsafe.SliceData(r.sfinfo)))))
	ne.PutUint64(h[32:], uint64(uintptr(unsafe.Pointer(unsafe.SliceData(r.tcp)))))
	if _, err := getsockopt(fd, optFullInfo, r.full[:]); err != nil {
		return fmt.Errorf("getsockopt MPTCP_FULL_INFO: %w", notMPTCP(err))
	}
	// The kernel cuts each element size to its own and writes the arrays
	// at that stride, reporting both sizes back.
	tcpKernel, sfKernel := ne.Uint32(h[0:]), ne.Uint32(h[8:])
	tcpStride, sfStride := int(ne.Uint32(h[4:])), int(ne.Uint32(h[12:]))
	n := min(int(ne.Uint32(h[16:])), r.max)
	if tcpStride <= 0 || tcpStride > tcpinfo.Size || sfStride <= 0 || sfStride > subflowInfoSize {
		return fmt.Errorf("getsockopt MPTCP_FULL_INFO: element sizes %d and %d", tcpStride, sfStride)
	}
	tcpLen := min(int(tcpKernel), tcpStride)
	for i := range n {
		sf := r.sfinfo[i*sfStride : (i+1)*sfStride]
		s := Subflow{Index: i, TCP: tcpinfo.Decode(r.tcp[i*tcpStride : i*tcpStride+tcpLen])}
		if sfKernel >= 4 {
			s.ID = ne.Uint32(sf)
		}
		if sfKernel >= subflowInfoSize && sfStride >= subflowInfoSize {
			s.Local, s.Remote = decodeAddrs(sf[8:])
		}
		r.subflows = append(r.subflows, s)
	}
	return nil
}

func (r *Reader) readLegacy(fd int) error {
	if _, err := getsockopt(fd, optInfo, r.full[40:]); err != nil {
		return fmt.Errorf("getsockopt MPTCP_INFO: %w", notMPTCP(err))
	}
	tcp, err := r.subflowData(fd, optTCPInfo, r.tcp, tcpinfo.Size)
	if err != nil {
		return fmt.Errorf("getsockopt MPTCP_TCPINFO: %w", err)
	}
	addrs, err := r.subflowData(fd, optSubflowAddrs, r.sfinfo, subflowAddrsSize)
	if err != nil {
		return fmt.Errorf("getsockopt MPTCP_SUBFLOW_ADDRS: %w", err)
	}
	// Two calls, so a subflow may have come or gone between them: only the
	// common prefix of the two lists is reported.
	n := min(tcp.n, addrs.n, r.max)
	for i := range n {
		s := Subflow{Index: i, TCP: tcpinfo.Decode(tcp.elem(i))}
		s.Local, s.Remote = decodeAddrs(addrs.elem(i))
		r.subflows = append(r.subflows, s)
	}
	return nil
}

// subflowArray is an MPTCP_TCPINFO or MPTCP_SUBFLOW_ADDRS answer.
type subflowArray struct {
	buf          []byte
	n            int // elements present
	user, kernel int // element stride, and the kernel's element size
}

func (a subflowArray) elem(i int) []byte {
	off := subflowDataSize + i*a.user
	return a.buf[off : off+min(a.user, a.kernel)]
}

// subflowData asks for an array of elem-byte elements behind a
// struct mptcp_subflow_data header.
func (r *Reader) subflowData(fd, opt int, buf []byte, elem int) (subflowArray, error) {
	ne := binary.NativeEndian
	clear(buf[:subflowDataSize])
	ne.PutUint32(buf[0:], subflowDataSize)
	ne.PutUint32(buf[12:], uint32(elem))
	n, err := getsockopt(fd, opt, buf)
	if err != nil {
		return subflowArray{}, notMPTCP(err)
	}
	// The kernel cuts size_user to its own element size and lays the
	// elements out at that stride; num_subflows counts every subflow, but
	// only the elements that fit in the returned length are there.
	a := subflowArray{buf: buf, user: int(ne.Uint32(buf[12:])), kernel: int(ne.Uint32(buf[8:]))}
	if a.user <= 0 || a.user > elem {
		return subflowArray{}, fmt.Errorf("kernel element size %d, asked for %d", a.user, elem)
	}
	a.n = min(int(ne.Uint32(buf[4:])), (int(n)-subflowDataSize)/a.user)
	return a, nil
}

func notMPTCP(err error) error {
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOPROTOOPT) {
		return fmt.Errorf("%w (%w)", ErrNotMPTCP, err)
	}
	return err
}

// getsockopt is getsockopt(fd, SOL_MPTCP, opt, buf) without the
// allocations of unix.Getsockopt*; it returns the length written.
func getsockopt(fd, opt int, buf []byte) (uint32, error) {
	n := uint32(len(buf))
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_MPTCP, uintptr(opt),
		uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(unsafe.Pointer(&n)), 0)
	if e != 0 {
		return 0, e
	}
	return n, nil
}

// ReadInfo reads only MPTCP_INFO from the socket behind rc: the check a
// client makes once connected (Info.Fallback), without a Reader.
func ReadInfo(rc syscall.RawConn) (Info, error) {
	var buf [infoSize]byte
	var n uint32
	var err error
	if cerr := rc.Control(func(fd uintptr) { n, err = getsockopt(int(fd), optInfo, buf[:]) }); cerr != nil {
		return Info{}, fmt.Errorf("mptcp: %w", cerr)
	}
	if err != nil {
		return Info{}, fmt.Errorf("getsockopt MPTCP_INFO: %w", notMPTCP(err))
	}
	return decodeInfo(buf[:n]), nil
}

// IsMPTCPSocket reports whether the socket behind rc was made as an MPTCP
// socket (SO_PROTOCOL is IPPROTO_MPTCP). Go's SetMultipathTCP silently
// makes a plain TCP socket when the kernel refuses MPTCP; this tells.
func IsMPTCPSocket(rc syscall.RawConn) (bool, error) {
	var proto int
	var err error
	if cerr := rc.Control(func(fd uintptr) { proto, err = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PROTOCOL) }); cerr != nil {
		return false, fmt.Errorf("mptcp: %w", cerr)
	}
	if err != nil {
		return false, fmt.Errorf("getsockopt SO_PROTOCOL: %w", err)
	}
	return proto == unix.IPPROTO_MPTCP, nil
}
