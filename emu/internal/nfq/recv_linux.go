package nfq

import (
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Recv waits until at least one packet is queued or deadline passes, then
// returns every packet already queued, up to len(pkts) and Config.Batch, in
// arrival order. A zero deadline waits without limit; a deadline in the past
// only collects what is already there. It returns 0 and no error when the
// deadline passes or Interrupt is called, and ErrClosed after Close.
//
// Payloads alias the queue's buffers until the next Recv or Poll. Recv
// allocates nothing. Its wake-up precision depends on the calling thread's
// timer slack and scheduling; see LockThreadPrecise.
func (q *Queue) Recv(pkts []Packet, deadline time.Time) (int, error) {
	if len(pkts) == 0 {
		return 0, nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if q.closed.Load() {
			return 0, ErrClosed
		}
		n, more, err := q.read(pkts)
		if n > 0 || err != nil {
			return n, err
		}
		if more {
			continue // a batch of only verdict errors: read again before sleeping
		}
		var wait time.Duration = -1
		if !deadline.IsZero() {
			wait = time.Until(deadline)
			if wait <= 0 {
				return 0, nil
			}
			if wait <= q.cfg.Spin {
				return q.spin(pkts, deadline)
			}
			wait -= q.cfg.Spin
		}
		woken, err := q.wait(wait)
		if err != nil {
			return 0, err
		}
		if woken {
			if q.closed.Load() {
				return 0, ErrClosed
			}
			return 0, nil
		}
		// Readable, timed out or interrupted by a signal: the next round
		// reads, or finds the deadline passed.
	}
}

// Poll returns the packets already queued, up to len(pkts) and
// Config.Batch, without waiting. Like Recv it allocates nothing.
func (q *Queue) Poll(pkts []Packet) (int, error) {
	if len(pkts) == 0 {
		return 0, nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed.Load() {
		return 0, ErrClosed
	}
	n, _, err := q.read(pkts)
	return n, err
}

// Sleep waits until deadline without looking at the queue: packets wait in
// the socket meanwhile (Config.RcvBuf bounds how many). With Config.Spin it
// sleeps until Spin before the deadline and spins on the clock from there.
// It returns early, with no error, when Interrupt is called, and ErrClosed
// after Close. A loop that learns each packet's arrival from its kernel
// timestamp (Config.Timestamps) uses it to wake only when it has something
// to release.
func (q *Queue) Sleep(deadline time.Time) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if q.closed.Load() {
			return ErrClosed
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return nil
		}
		if wait <= q.cfg.Spin {
			for time.Now().Before(deadline) {
			}
			return nil
		}
		q.pfds[0] = unix.PollFd{Fd: int32(q.evfd), Events: unix.POLLIN}
		q.ts = unix.NsecToTimespec(int64(wait - q.cfg.Spin))
		_, err := unix.Ppoll(q.pfds[:1], &q.ts, nil)
		if err != nil && err != unix.EINTR {
			return fmt.Errorf("nfq: queue %d: ppoll: %w", q.cfg.Num, err)
		}
		if q.pfds[0].Revents != 0 {
			_, _ = unix.Read(q.evfd, q.evb[:])
			if q.closed.Load() {
				return ErrClosed
			}
			return nil
		}
	}
}

// spin polls without sleeping until a packet arrives or deadline passes.
func (q *Queue) spin(pkts []Packet, deadline time.Time) (int, error) {
	for {
		n, _, err := q.read(pkts)
		if n > 0 || err != nil {
			return n, err
		}
		if q.closed.Load() {
			return 0, ErrClosed
		}
		if !time.Now().Before(deadline) {
			return 0, nil
		}
	}
}

// wait sleeps in ppoll until the socket is readable, the eventfd fires, a
// signal arrives or timeout passes (timeout < 0: no limit). woken reports
// the eventfd.
func (q *Queue) wait(timeout time.Duration) (woken bool, err error) {
	q.pfds[0] = unix.PollFd{Fd: int32(q.fd), Events: unix.POLLIN}
	q.pfds[1] = unix.PollFd{Fd: int32(q.evfd), Events: unix.POLLIN}
	var ts *unix.Timespec
	if timeout >= 0 {
		q.ts = unix.NsecToTimespec(int64(timeout))
		ts = &q.ts
	}
	_, err = unix.Ppoll(q.pfds[:], ts, nil)
	if err == unix.EINTR {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("nfq: queue %d: ppoll: %w", q.cfg.Num, err)
	}
	if q.pfds[1].Revents != 0 {
		_, _ = unix.Read(q.evfd, q.evb[:]) // reset the counter
		return true, nil
	}
	if q.pfds[0].Revents&unix.POLLNVAL != 0 {
		return false, fmt.Errorf("nfq: queue %d: socket descriptor invalid", q.cfg.Num)
	}
	// POLLERR (a receive buffer overflow) is left to read, which counts it.
	return false, nil
}

// read takes every queued message, up to len(pkts) and the batch size, with
// one non-blocking recvmmsg. more reports that the batch was full, so more
// messages may be waiting even though no packet was returned.
func (q *Queue) read(pkts []Packet) (n int, more bool, err error) {
	want := min(len(pkts), len(q.msgs))
	for {
		r, _, e := unix.Syscall6(unix.SYS_RECVMMSG, uintptr(q.fd), uintptr(unsafe.Pointer(&q.msgs[0])),
			uintptr(want), unix.MSG_DONTWAIT, 0, 0)
		switch e {
		case 0:
		case unix.EAGAIN:
			return 0, false, nil
		case unix.EINTR:
			continue
		case unix.ENOBUFS:
			// Messages were lost; the socket is usable again at once.
			q.noBufs.Add(1)
			continue
		default:
			return 0, false, fmt.Errorf("nfq: queue %d: recvmmsg: %w", q.cfg.Num, e)
		}
		for i := range int(r) {
			b := q.bufs[i*q.slot : i*q.slot+int(q.msgs[i].len)]
			for len(b) > 0 && n < len(pkts) {
				m, rest, err := nextMsg(b)
				if err != nil {
					break
				}
				b = rest
				kind, errno, _, err := parseMsg(m, &pkts[n])
				switch {
				case err != nil:
				case kind == kindPacket:
					n++
				case kind == kindError && errno != 0:
					q.verdictErrs.Add(1)
					q.lastErrno.Store(errno)
				}
			}
		}
		return n, int(r) == want, nil
	}
}
