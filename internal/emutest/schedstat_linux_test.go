package emutest

import (
	"runtime"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestParseSchedstat(t *testing.T) {
	got := parseSchedstat([]byte("123456789 987654 42\n"))
	if got.Ran != 123456789 || got.Queued != 987654 {
		t.Errorf("got %+v", got)
	}
	if got := parseSchedstat(nil); got != (SchedCounters{}) {
		t.Errorf("empty: %+v", got)
	}
}

// TestFidelitySchedstatTellsQueuedFromBlocked: a real-time thread kept from its
// CPU by a higher-priority spinner on the same CPU is queued for the
// spin; one that waits, blocked, for 30 ms is not. The first is the
// kernel's stall (SkipIfKernelQueued skips), the second could be emu's.
func TestFidelitySchedstatTellsQueuedFromBlocked(t *testing.T) {
	RequireRoot(t)
	host := Fidelity(t)
	// Both threads are pinned and real-time; they end with their
	// goroutines, still locked, so the runtime discards them rather than
	// reuse them (a process the test binary starts later inherits the
	// affinity of the thread that starts it).
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		schedstatQueuedOrBlocked(t, host)
	}()
	<-done
}

func schedstatQueuedOrBlocked(t *testing.T, host *HostWatch) {
	const spin = 30 * time.Millisecond
	var cpu unix.CPUSet
	cpu.Set(0)
	if err := unix.SchedSetaffinity(0, &cpu); err != nil {
		t.Error(err)
		return
	}
	if err := unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: 10}, 0); err != nil {
		t.Error(err)
		return
	}
	st, err := OpenSchedstat()
	if err != nil {
		t.Error(err)
		return
	}
	defer st.Close()

	// Blocked: the thread sleeps in the kernel, nothing runs ahead of it.
	s0 := st.Read()
	time.Sleep(spin)
	blocked := st.Read()
	blocked.Ran -= s0.Ran
	blocked.Queued -= s0.Queued

	// Queued: while this thread sleeps 5 ms, a spinner at a higher
	// priority takes the same CPU for 30 ms, so this thread wakes runnable
	// and waits for it.
	const nap = 5 * time.Millisecond
	spun := make(chan error, 1)
	s1 := st.Read()
	t0 := Mono()
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		if err := unix.SchedSetaffinity(0, &cpu); err != nil {
			spun <- err
			return
		}
		if err := unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: 20}, 0); err != nil {
			spun <- err
			return
		}
		for end := Mono() + spin; Mono() < end; {
		}
		spun <- unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}, 0)
	}()
	// A raw system call keeps the thread's P: the wake-up cannot wait for
	// the runtime.
	ts := unix.NsecToTimespec(int64(nap))
	unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
	late := Mono() - t0 - nap
	queued := st.Read()
	queued.Ran -= s1.Ran
	queued.Queued -= s1.Queued
	if err := <-spun; err != nil {
		t.Error(err)
		return
	}
	t.Logf("blocked 30 ms: %v; behind a spinner: woke %v late, %v", blocked, late, queued)
	if blocked.Queued > spin/4 {
		// Something ran ahead of a real-time thread that woke: the fair
		// server's share for a busy machine's ordinary tasks.
		host.Errorf(t, "a thread blocked for %v was queued %v", spin, blocked.Queued)
	}
	if late < spin/2 {
		t.Logf("the spinner did not hold the CPU (woke %v late): the kernel moved one of them", late)
		return
	}
	// The kernel counted 9.1–25.3 ms of 25.1–26.6 ms queued in six runs
	// on the development VM (all of it in four): clearly more than the
	// blocked thread's nothing, which is the difference the tests rely on.
	if queued.Queued < spin/6 {
		t.Errorf("a thread held %v by a spinner on its CPU was queued only %v", late, queued.Queued)
	}
}
