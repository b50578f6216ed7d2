package nfq

import (
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/rtsched"
)

// LockThreadPrecise locks the calling goroutine to its OS thread, sets the
// thread's timer slack to 1 ns and schedules it as asked, falling back to
// the next weaker policy when not permitted (it reports the policy it got).
// The kernel may delay a sleeping thread's wake-up by its timer slack (50 µs
// by default) to batch timers; a loop that releases packets at their due
// time cannot afford that, nor waiting behind other programs for a CPU.
//
// A real-time thread goes through package rtsched, which keeps the garbage
// collector from running while it is real-time (a collection's stack scan
// could otherwise stall it for about a second).
//
// Call restore on the same goroutine to put the thread back as it was and
// unlock it. If that fails the thread stays locked, and the runtime retires
// it when the goroutine ends.
func LockThreadPrecise(want Sched) (restore func(), got Sched, err error) {
	return LockThreadPriority(want, rtsched.PacketPriority)
}

// LockThreadPriority is LockThreadPrecise with SchedRealtime at SCHED_FIFO
// priority prio instead of rtsched.PacketPriority.
func LockThreadPriority(want Sched, prio int) (restore func(), got Sched, err error) {
	runtime.LockOSThread()
	fail := func(err error) (func(), Sched, error) {
		runtime.UnlockOSThread()
		return nil, SchedDefault, err
	}
	if want < SchedRealtime || want > SchedDefault {
		return fail(fmt.Errorf("nfq: unknown scheduling %d", int(want)))
	}
	slack, _, e := unix.Syscall(unix.SYS_PRCTL, unix.PR_GET_TIMERSLACK, 0, 0)
	if e != 0 {
		return fail(fmt.Errorf("nfq: get timer slack: %w", e))
	}
	orig, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return fail(fmt.Errorf("nfq: get scheduling: %w", err))
	}
	if err := unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("nfq: set timer slack: %w", err))
	}
	got = SchedDefault
	var leave func() error // set when the thread went real-time
	for s := want; s < SchedDefault; s++ {
		var err error
		if s == SchedRealtime {
			leave, err = rtsched.Enter(prio)
		} else {
			err = unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_NORMAL, Nice: -20}, 0)
		}
		if err == nil {
			got = s
			break
		}
		if !errors.Is(err, unix.EPERM) {
			unix.Prctl(unix.PR_SET_TIMERSLACK, slack, 0, 0, 0)
			return fail(fmt.Errorf("nfq: set scheduling %s: %w", s, err))
		}
	}
	return func() {
		var e1 error
		if leave != nil {
			e1 = leave()
		} else {
			e1 = unix.SchedSetAttr(0, orig, 0)
		}
		e2 := unix.Prctl(unix.PR_SET_TIMERSLACK, slack, 0, 0, 0)
		if e1 == nil && e2 == nil {
			runtime.UnlockOSThread()
		}
	}, got, nil
}
