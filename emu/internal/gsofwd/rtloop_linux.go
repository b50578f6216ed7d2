package gsofwd

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/rtsched"
)

// An RTLoop runs a proxy loop on a real-time thread while the loop is
// light, and as a goroutine of the runtime's poller while it is busy.
//
// Light, a loop's system calls carry little of the kernel's forwarding,
// and a real-time thread below the delay lines' priority takes nothing
// from them; as a goroutine it waited behind the endpoints for a CPU, up
// to 1.6 ms in a second of the fairness scenario on two cores (the fidelity
// metric pdcp.socket_wait). Busy, a send or a TUN write carries a millisecond of
// the link's packets through the kernel with bottom halves off, which a
// delay line cannot preempt: real-time loops in the mmWave case left the
// delay lines 0.85–1.38 ms late at p99 (docs/design.md).
//
// While real-time it waits for its descriptor in the kernel (poll), not in
// the poller: the poller's thread is a normal one, and a real-time loop
// woken through it would first wait for that thread's CPU. The ends'
// stop descriptor (an eventfd written on close) ends the wait, since
// closing a descriptor does not wake a poll on it.
//
// The loop calls Start once, then, each round, Wait before its read and
// Moved after it, and Exit when it ends (deferred): all from its own
// goroutine, which the loop locks to its thread while real-time.
type RTLoop struct {
	prio int
	fds  [2]unix.PollFd
	// leave is rtsched's, while the thread is real-time; nil otherwise.
	leave func() error
	// from is when the current window began, bytes what the loop moved
	// in it; light is how long it has been light, up to from.
	from  time.Duration
	bytes int
	light time.Duration
	// spells is what the loop reports of its time real-time.
	spells *RTSpells
}

// RTSpells is how long a loop has been real-time, and how often it turned
// real-time or left, for its proxy's counters: the loop writes it, and
// any goroutine may read it (Total, Switches) while the loop runs.
type RTSpells struct {
	ended    atomic.Int64 // ns, the spells that ended
	since    atomic.Int64 // when the current spell began, ns; -1: none
	switches atomic.Uint64
}

// NewRTSpells returns the spells of a loop not yet real-time.
func NewRTSpells() *RTSpells {
	s := new(RTSpells)
	s.since.Store(-1)
	return s
}

// Total is the time real-time up to now, on the loop's clock (the now it
// is given).
func (s *RTSpells) Total(now time.Duration) time.Duration {
	d := time.Duration(s.ended.Load())
	if since := s.since.Load(); since >= 0 {
		d += now - time.Duration(since)
	}
	return d
}

// Switches is how often the loop turned real-time or left.
func (s *RTSpells) Switches() uint64 { return s.switches.Load() }

// lightRate is the rate, per loop, above which a loop is busy: a real-time
// loop leaves as soon as the bytes of its current window come to more
// than rtWindow of lightRate, and a normal one turns real-time once it
// has carried less than half of it for lightFor. The fairness scenario's
// proxies move 5–20 Mbit/s and were helped; the mmWave case's 400–500
// Mbit/s, whose TCP recovery leaves windows nearly empty, were harmed by
// a loop that judged each window only at its end.
const lightRate = 50e6 // bit/s

// rtWindow is how often a loop judges its rate, and lightFor how long it
// must have been light to turn real-time again.
const (
	rtWindow = 100 * time.Millisecond
	lightFor = time.Second
)

// NewRTLoop makes the loop that reads f, one of the ends' (TUN.File(),
// UDP.File()), real-time at SCHED_FIFO priority prio while light, that
// reports its spells in spells; prio 0 makes one that never is. Closing
// the ends ends its Wait.
func (e *Ends) NewRTLoop(f *os.File, prio int, spells *RTSpells) (*RTLoop, error) {
	c, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, err := fdOf(c)
	if err != nil {
		return nil, err
	}
	return newRTLoop(fd, e.stop, prio, spells), nil
}

// newRTLoop makes a loop that reads fd and stops on stop, real-time at
// prio while light, that reports its spells in spells; prio 0 makes one
// that never is.
func newRTLoop(fd, stop, prio int, spells *RTSpells) *RTLoop {
	return &RTLoop{prio: prio, fds: [2]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(stop), Events: unix.POLLIN}}, spells: spells}
}

// Start makes the calling goroutine's loop real-time at now, as a loop is
// light until it has moved something.
func (l *RTLoop) Start(now time.Duration) error {
	l.from = now
	return l.enter(now)
}

// enter locks the goroutine to its thread and makes the thread real-time.
// Without the permission to, the loop stays a goroutine.
func (l *RTLoop) enter(now time.Duration) error {
	if l.prio == 0 || l.leave != nil {
		return nil
	}
	runtime.LockOSThread()
	leave, err := rtsched.Enter(l.prio)
	if err != nil {
		runtime.UnlockOSThread()
		if errors.Is(err, unix.EPERM) {
			l.prio = 0
			return nil
		}
		return fmt.Errorf("gsofwd: real-time loop: %w", err)
	}
	l.leave = leave
	l.spells.since.Store(int64(now))
	l.spells.switches.Add(1)
	return nil
}

// Exit puts the thread back at now and unlocks it; if that fails the
// thread stays locked, and the runtime retires it with the goroutine.
func (l *RTLoop) Exit(now time.Duration) error {
	if l.leave == nil {
		return nil
	}
	err := l.leave()
	l.leave = nil
	l.spells.ended.Add(int64(now) - l.spells.since.Swap(-1))
	l.spells.switches.Add(1)
	if err != nil {
		return fmt.Errorf("gsofwd: real-time loop: %w", err)
	}
	runtime.UnlockOSThread()
	return nil
}

// Wait blocks, on a real-time loop, until the descriptor is readable or
// the ends close; otherwise it returns at once (the read waits in the
// poller).
func (l *RTLoop) Wait() {
	if l.leave == nil {
		return
	}
	for {
		if _, err := unix.Poll(l.fds[:], -1); err != unix.EINTR {
			return // readable, closing, or an error the read will report
		}
	}
}

// Moved accounts n bytes the loop moved at now: a real-time loop leaves
// as soon as its window holds more than lightRate's share, and a normal
// one turns real-time after lightFor of windows at under half of it. A
// window includes the time the loop waited: an idle loop is light.
func (l *RTLoop) Moved(n int, now time.Duration) error {
	l.bytes += n
	if l.leave != nil && float64(l.bytes)*8 > lightRate*rtWindow.Seconds() {
		l.from, l.bytes, l.light = now, 0, 0
		return l.Exit(now)
	}
	d := now - l.from
	if d < rtWindow {
		return nil
	}
	if float64(l.bytes)*8/d.Seconds() < lightRate/2 {
		l.light += d
	} else {
		l.light = 0
	}
	l.from, l.bytes = now, 0
	if l.leave == nil && l.light >= lightFor {
		return l.enter(now)
	}
	return nil
}

// fdOf is the descriptor behind c without changing its blocking mode
// (os.File.Fd would set it blocking).
func fdOf(c syscall.RawConn) (int, error) {
	fd := -1
	err := c.Control(func(u uintptr) { fd = int(u) })
	return fd, err
}
