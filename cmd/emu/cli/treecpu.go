package cli

import (
	"syscall"
	"time"
)

// treeCPU is the CPU time (user and system) this process and its waited-for
// children have used: a sweep run's emulator threads and its endpoint
// processes once they have exited. --jobs auto measures one run with it.
func treeCPU() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) != nil {
			continue
		}
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total
}
