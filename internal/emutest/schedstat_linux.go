package emutest

import (
	"fmt"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A Schedstat reads the kernel's scheduling counters of one thread
// (/proc/thread-self/schedstat): how long it ran and how long it waited,
// runnable, on a CPU's run queue. They tell who held a real-time thread
// that woke late. A thread the Go runtime held (a collection stopping the
// world, a wait for a P) is blocked in it or spins in it, and its queued
// time does not grow; a thread the kernel kept from its CPU, runnable, is
// queued. On the development VM (Linux 6.18, preempt=none) the kernel
// does that behind the fair server, which runs ordinary tasks ahead of
// real-time ones for up to 50 ms of each second on one CPU: with four
// busy loops of nice 0 beside TestRealtimeThreadsSurviveCollections, its
// threads woke 16–38 ms late queued for all of it, while the witness
// process, on the other CPU, was on time.
type Schedstat struct{ fd int }

// SchedCounters are a thread's cumulative scheduling counters.
type SchedCounters struct {
	Ran, Queued time.Duration
}

// OpenSchedstat opens the calling thread's counters; the caller must have
// locked its goroutine to the thread.
func OpenSchedstat() (*Schedstat, error) {
	fd, err := unix.Open(fmt.Sprintf("/proc/self/task/%d/schedstat", unix.Gettid()), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("emutest: schedstat: %w", err)
	}
	return &Schedstat{fd}, nil
}

// Read returns the thread's counters now, zero if they do not read. It
// does not allocate: a timing loop can call it every step.
func (s *Schedstat) Read() SchedCounters {
	var buf [96]byte
	n, err := unix.Pread(s.fd, buf[:], 0)
	if err != nil || n <= 0 {
		return SchedCounters{}
	}
	return parseSchedstat(buf[:n])
}

// Close closes the counters.
func (s *Schedstat) Close() error { return unix.Close(s.fd) }

// parseSchedstat reads "ran queued slices" in nanoseconds.
func parseSchedstat(b []byte) SchedCounters {
	var v [2]int64
	for i := range v {
		for len(b) > 0 && b[0] == ' ' {
			b = b[1:]
		}
		j := 0
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			v[i] = 10*v[i] + int64(b[j]-'0')
			j++
		}
		b = b[j:]
	}
	return SchedCounters{Ran: time.Duration(v[0]), Queued: time.Duration(v[1])}
}

// SkipIfKernelQueued skips tb, saying so, when a real-time thread that
// overslept by late was runnable, queued on its CPU, for at least half of
// it: the kernel ran something else ahead of it (its fair server, a kernel
// path that cannot be preempted, or a task of higher priority), which no
// emu code can do to a real-time thread. Call it where the figure (what)
// failed; a stall of emu's own making leaves the thread blocked or
// running, and the test fails as it should.
func SkipIfKernelQueued(tb testing.TB, queued, late time.Duration, what string) {
	tb.Helper()
	if late > 0 && queued >= late/2 {
		tb.Skipf("%s%s while it was runnable, queued on its CPU, for %v of it: the kernel ran something else ahead of a real-time thread (the fair server runs ordinary tasks ahead of real-time ones for up to 50 ms a second), not emu", BusyHost, what, queued.Round(time.Microsecond))
	}
}

// String formats the counters for a log.
func (c SchedCounters) String() string {
	return "ran " + c.Ran.String() + ", queued " + c.Queued.String()
}
