package rtsched

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The runtime's sysmon thread takes a goroutine's scan bit while it
// retakes the P of a thread blocked in a system call (Go 1.26,
// setBlockOnExitSyscall). A real-time thread whose call returns meanwhile
// spins in exitsyscall until sysmon lets the bit go, and if sysmon is the
// normal thread it preempted, sysmon waits for the spinner: 52–105 ms in 1
// run of 4 of TestRealtimeThreadsSurviveCollections, the thread on its CPU
// the whole time and no collection under way. So while threads are
// real-time sysmon is too, one priority above them: it preempts a spinner
// for the microseconds it needs, and it never spins on a lower thread
// itself (its locks sleep in futexes). It already wakes every 20 µs to
// 10 ms and does a few microseconds of work; as a real-time thread that
// work goes ahead of the packet loops.

// sysmonThread finds sysmon: the first thread the runtime creates
// (runtime.main starts it before any package's init), so the one whose
// thread ID follows the process ID most closely, thread IDs being handed
// out in increasing order and wrapping at pid_max.
func sysmonThread() (int, error) {
	pid := unix.Getpid()
	max := 1 << 22
	if b, err := os.ReadFile("/proc/sys/kernel/pid_max"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
			max = n
		}
	}
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, fmt.Errorf("rtsched: find sysmon: %w", err)
	}
	best, bestDist := 0, max
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil || tid == pid {
			continue
		}
		if d := ((tid-pid)%max + max) % max; d < bestDist {
			best, bestDist = tid, d
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("rtsched: find sysmon: the process has one thread")
	}
	return best, nil
}
