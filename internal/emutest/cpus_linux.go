package emutest

import (
	"testing"

	"golang.org/x/sys/unix"
)

// SpareCPU returns the CPUs the process may use and the last of them, for
// a test that keeps some threads on a CPU of their own (run.rt_cpus); it
// skips the test where the process has one CPU, which leaves none spare.
func SpareCPU(tb testing.TB) (all unix.CPUSet, last int) {
	tb.Helper()
	if err := unix.SchedGetaffinity(unix.Getpid(), &all); err != nil {
		tb.Fatal(err)
	}
	if all.Count() < 2 {
		tb.Skipf("the process may use %d CPU: keeping threads on one of their own needs another left over", all.Count())
	}
	for c := range len(all) * 64 {
		if all.IsSet(c) {
			last = c
		}
	}
	return all, last
}
