// Package rtsched makes threads of a Go program real-time (SCHED_FIFO)
// without letting the Go garbage collector stall them.
//
// A real-time thread that runs Go code can spin inside the runtime waiting
// for a thread of normal priority. The case that bites is the garbage
// collector's stack scan: it scans a goroutine blocked in a system call in
// place, holding the goroutine's status, and a goroutine whose system call
// returns meanwhile spins in the runtime (exitsyscall) until the scan is
// over. If the scanning thread is the one the real-time thread preempted
// when it woke (or every CPU is held by such spinners), the scan never
// finishes: sched_yield does not yield to lower priorities, and the kernel
// runs normal tasks again only when its fair server (or RT throttling)
// steps in, after about 950 ms of starvation. Every packet loop of the
// process stalls that long.
//
// So while any thread is real-time, this package takes the collector into
// its own hands: Enter switches automatic collection off
// (debug.SetGCPercent(-1)) when the first thread turns real-time, and a
// governor goroutine polls the heap and runs each collection itself
// (runtime.GC), with every real-time thread demoted to nice −20 for the
// length of the cycle and restored after it. No collection therefore runs
// while a thread is real-time, and a demoted thread that still meets a scan
// shares its CPU with the scanner. The governor paces collections as GOGC
// would (the percentage in force when it took over); when the last thread
// leaves, automatic collection comes back with that percentage.
//
// The runtime's monitor thread (sysmon) holds a goroutine's status the
// same way, for microseconds, each time it retakes the P of a thread in a
// system call, and a real-time thread that preempts it then spins until
// the kernel moves it elsewhere (52–105 ms). So while any thread is
// real-time, sysmon is real-time too, one priority above them, with its
// clones reset to normal (sysmon_linux.go).
//
// SetCPUs keeps the upper real-time threads and sysmon on CPUs of their
// own (emu's run.rt_cpus), so that their wake-ups stop preempting the
// normal threads elsewhere; the governor gives the threads sysmon clones
// meanwhile, which inherit its CPU mask, the process's CPUs back
// (cpus_linux.go).
//
// What it does not cover: collections the program starts itself
// (runtime.GC, debug.FreeOSMemory) and the ones the runtime starts to keep
// a memory limit (GOMEMLIMIT) run with the threads still real-time;
// goroutine profiles and execution traces also take goroutines' statuses.
// Call GC instead of runtime.GC.
package rtsched
