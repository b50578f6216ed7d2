package nfq

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/nsthread"
)

// ErrClosed is returned by Recv and Flush after Close.
var ErrClosed = errors.New("nfq: queue closed")

// Queue is a bound NFQUEUE. See the package documentation for which methods
// may be called concurrently.
type Queue struct {
	cfg   Config
	fd    int // netlink socket
	evfd  int // eventfd that wakes a waiting Recv (Interrupt, Close)
	procf int // /proc/net/netfilter/nfnetlink_queue opened inside the namespace
	tsfd  int // a socket that keeps the kernel's receive timestamps on (Config.Timestamps)

	// mu is held by Recv and Flush while they use the descriptors, so Close
	// never closes a descriptor under a system call.
	mu     sync.Mutex
	closed atomic.Bool
	// evMu guards evfd against Close while Interrupt writes to it.
	evMu sync.Mutex

	// Receive state, allocated once in Open.
	slot int
	bufs []byte
	iovs []unix.Iovec
	msgs []mmsghdr
	pfds [2]unix.PollFd
	ts   unix.Timespec
	evb  [8]byte

	// Send state: verdicts appended until Flush.
	sendBuf []byte
	sendErr error

	noBufs      atomic.Uint64
	verdictErrs atomic.Uint64
	lastErrno   atomic.Int32

	statsMu  sync.Mutex
	statsBuf []byte
}

// mmsghdr is struct mmsghdr: Go pads it to the alignment of Msghdr exactly
// as C does on every Linux architecture.
type mmsghdr struct {
	hdr unix.Msghdr
	len uint32
}

const sendBufSize = 256 << 10

// Open binds queue cfg.Num in namespace cfg.NetNS. Open the queue before
// installing the rules that feed it: packets queued before the queue is
// bound are dropped (or pass, with the rule's bypass flag), and the few that
// may arrive while Open configures the queue are accepted.
func Open(cfg Config) (*Queue, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	q := &Queue{cfg: cfg, fd: -1, evfd: -1, procf: -1, tsfd: -1}
	err = inNetNS(cfg.NetNS, func() error {
		fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_NETFILTER)
		if err != nil {
			return fmt.Errorf("netlink socket: %w", err)
		}
		q.fd = fd
		pf, err := unix.Open("/proc/thread-self/net/netfilter/nfnetlink_queue", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open queue statistics: %w", err)
		}
		q.procf = pf
		if cfg.Timestamps {
			ts, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				return fmt.Errorf("timestamp socket: %w", err)
			}
			q.tsfd = ts
			if err := unix.SetsockoptInt(ts, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
				return fmt.Errorf("enable receive timestamps: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		q.closeFds()
		return nil, fmt.Errorf("nfq: queue %d: %w", cfg.Num, err)
	}
	if err := q.setup(); err != nil {
		q.closeFds()
		return nil, fmt.Errorf("nfq: queue %d: %w", cfg.Num, err)
	}
	return q, nil
}

func (q *Queue) setup() error {
	if err := unix.Bind(q.fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("bind netlink socket: %w", err)
	}
	if err := unix.SetsockoptInt(q.fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, q.cfg.RcvBuf); err != nil {
		if err := unix.SetsockoptInt(q.fd, unix.SOL_SOCKET, unix.SO_RCVBUF, q.cfg.RcvBuf); err != nil {
			return fmt.Errorf("set receive buffer %d: %w", q.cfg.RcvBuf, err)
		}
	}
	// The send buffer bounds one write of batched verdicts.
	if err := unix.SetsockoptInt(q.fd, unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, 4*sendBufSize); err != nil {
		_ = unix.SetsockoptInt(q.fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 4*sendBufSize)
	}
	// An overflow shows up as UserDropped in the kernel's statistics instead
	// of an error that interrupts the reader.
	if err := unix.SetsockoptInt(q.fd, unix.SOL_NETLINK, unix.NETLINK_NO_ENOBUFS, 1); err != nil {
		return fmt.Errorf("set NETLINK_NO_ENOBUFS: %w", err)
	}
	// Errors for rejected verdicts need not echo the (possibly large) verdict.
	_ = unix.SetsockoptInt(q.fd, unix.SOL_NETLINK, unix.NETLINK_CAP_ACK, 1)

	ev, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return fmt.Errorf("eventfd: %w", err)
	}
	q.evfd = ev

	q.slot = q.cfg.slotSize()
	n := q.cfg.Batch
	q.bufs = make([]byte, n*q.slot)
	q.iovs = make([]unix.Iovec, n)
	q.msgs = make([]mmsghdr, n)
	for i := range n {
		q.iovs[i].Base = &q.bufs[i*q.slot]
		q.iovs[i].SetLen(q.slot)
		q.msgs[i].hdr.Iov = &q.iovs[i]
		q.msgs[i].hdr.SetIovlen(1)
	}
	q.sendBuf = make([]byte, 0, sendBufSize)
	q.statsBuf = make([]byte, 64<<10)
	return q.configure()
}

// configure sends the bind and parameter message and waits for the ack.
func (q *Queue) configure() error {
	const seq = 1
	msg := appendConfig(nil, seq, &q.cfg)
	if _, err := unix.Write(q.fd, msg); err != nil {
		return fmt.Errorf("send config: %w", err)
	}
	deadline := time.Now().Add(2 * time.Second)
	buf := q.bufs[:q.slot]
	var p Packet
	for {
		n, _, err := unix.Recvfrom(q.fd, buf, 0)
		if err == unix.EAGAIN || err == unix.EINTR {
			left := time.Until(deadline)
			if left <= 0 {
				return errors.New("no answer to config from the kernel")
			}
			q.pfds[0] = unix.PollFd{Fd: int32(q.fd), Events: unix.POLLIN}
			ts := unix.NsecToTimespec(int64(left))
			if _, err := unix.Ppoll(q.pfds[:1], &ts, nil); err != nil && err != unix.EINTR {
				return fmt.Errorf("wait for config ack: %w", err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("receive config ack: %w", err)
		}
		b := buf[:n]
		for len(b) > 0 {
			m, rest, err := nextMsg(b)
			if err != nil {
				break
			}
			b = rest
			kind, errno, s, err := parseMsg(m, &p)
			switch {
			case err != nil:
			case kind == kindPacket:
				// A rule already feeds the queue; pass the packet on.
				if _, err := unix.Write(q.fd, appendVerdict(nil, msgVerdict, q.cfg.Num, p.ID, verdictAccept, false, 0, nil)); err != nil {
					return fmt.Errorf("accept early packet: %w", err)
				}
			case kind == kindError && s == seq:
				if errno == 0 {
					return nil
				}
				e := unix.Errno(errno)
				if e == unix.EPERM {
					return fmt.Errorf("bind: queue already bound by another socket, or no CAP_NET_ADMIN: %w", e)
				}
				return fmt.Errorf("configure (copy mode %d, range %d, max %d, gso %v): %w",
					q.cfg.CopyMode, q.cfg.CopyRange, q.cfg.MaxQueueLen, q.cfg.GSO, e)
			}
		}
	}
}

// Interrupt makes a Recv that is waiting, or the next one, return 0 packets
// at once. Safe from any goroutine.
func (q *Queue) Interrupt() {
	q.evMu.Lock()
	defer q.evMu.Unlock()
	if q.evfd < 0 {
		return
	}
	var one [8]byte
	ne.PutUint64(one[:], 1)
	_, _ = unix.Write(q.evfd, one[:])
}

// Close unbinds the queue. Packets still held by the kernel are dropped.
// It wakes a waiting Recv, which then returns ErrClosed. Idempotent; safe
// from any goroutine.
func (q *Queue) Close() error {
	if q.closed.Swap(true) {
		return nil
	}
	q.Interrupt()
	q.mu.Lock()
	defer q.mu.Unlock()
	q.statsMu.Lock()
	defer q.statsMu.Unlock()
	q.evMu.Lock()
	defer q.evMu.Unlock()
	return q.closeFds()
}

func (q *Queue) closeFds() error {
	var err error
	for _, fd := range []*int{&q.fd, &q.evfd, &q.procf, &q.tsfd} {
		if *fd >= 0 {
			if e := unix.Close(*fd); e != nil && err == nil {
				err = fmt.Errorf("nfq: close queue %d: %w", q.cfg.Num, e)
			}
			*fd = -1
		}
	}
	return err
}

// Num returns the queue number.
func (q *Queue) Num() uint16 { return q.cfg.Num }

// Config returns the queue's configuration with defaults filled in.
func (q *Queue) Config() Config { return q.cfg }

// inNetNS runs f on a thread inside namespace nsfd (0: the current one,
// on the calling goroutine).
func inNetNS(nsfd int, f func() error) error {
	if nsfd == 0 {
		return f()
	}
	return nsthread.Do(nsfd, f)
}
