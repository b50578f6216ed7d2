package gsofwd

import (
	"fmt"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/emutest"
)

// policy is the calling thread's scheduling policy.
func policy(t *testing.T) uint32 {
	t.Helper()
	a, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return a.Policy
}

// TestLoopRealtimeWhileLight drives a loop's windows by hand: real-time
// from the start, normal as soon as a window holds more than lightRate's
// share (before the window ends), real-time again only after lightFor of
// windows under half of lightRate (a busier window starts the count
// again), and its wait ends when the stop descriptor is written.
func TestLoopRealtimeWhileLight(t *testing.T) {
	emutest.RequireRoot(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	stop, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(stop)
	done := make(chan struct{})
	go func() {
		defer close(done)
		spells := NewRTSpells()
		l := newRTLoop(int(r.Fd()), stop, 9, spells)
		if err := l.Start(0); err != nil {
			t.Error(err)
			return
		}
		check := func(what string, want bool) {
			t.Helper()
			p := policy(t)
			if got := l.leave != nil; got != want || (p == unix.SCHED_FIFO) != want {
				t.Errorf("%s: real-time %t (policy %d), want %t", what, got, p, want)
			}
		}
		check("started", true)
		budget := int(lightRate / 8 * rtWindow.Seconds())
		move := func(n int, at time.Duration) {
			if err := l.Moved(n, at); err != nil {
				t.Error(err)
			}
		}
		move(budget-1, rtWindow/2)
		check("a window's share less a byte, mid-window", true)
		move(2, rtWindow*6/10)
		check("a byte over the share, mid-window", false)
		// From here a window each rtWindow, starting at 0.6 of one.
		now := rtWindow * 6 / 10
		window := func(rate float64) {
			now += rtWindow
			move(int(rate/8*rtWindow.Seconds()), now)
		}
		n := int(lightFor / rtWindow)
		for range n / 2 {
			window(lightRate * 0.3)
		}
		window(lightRate * 0.6) // not light: the count starts again
		for i := range n - 1 {
			window(lightRate * 0.3)
			check(fmt.Sprintf("light window %d of %d after a busier one", i+1, n), false)
		}
		window(lightRate * 0.3)
		check(fmt.Sprintf("light window %d of %d", n, n), true)
		back := now
		window(lightRate * 0.9)
		check("a window at 0.9 of lightRate", true)
		unix.Write(stop, []byte{1, 0, 0, 0, 0, 0, 0, 0})
		l.Wait() // real-time, in poll; the pipe is empty: only the stop descriptor ends it
		if err := l.Exit(now); err != nil {
			t.Error(err)
		}
		// Real-time from 0 to 0.6 of a window, and for the last window.
		if got, want := spells.Total(now+time.Hour), rtWindow*6/10+(now-back); got != want || spells.switches.Load() != 4 {
			t.Errorf("real-time %v in %d switches, want %v in 4", got, spells.switches.Load(), want)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop's wait did not end when the stop descriptor was written")
	}
}
