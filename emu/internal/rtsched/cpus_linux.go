package rtsched

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// A real-time thread that wakes on a CPU running a normal task preempts it
// there, even when another CPU is idle, and the task waits for that CPU.
// The batch path's packet loops are normal goroutines; at 2 Gbit/s the
// delay lines and sysmon (real-time here, see sysmon_linux.go) preempted
// them about 9,000 times a second, and they waited for a CPU most of the
// run while the machine was 30 % idle (docs/design.md). Keeping those
// real-time threads on CPUs of their own leaves the others to the loops.
//
// sysmon is the awkward one: it starts threads itself (handoffp → newm),
// and a clone inherits its CPU mask (SCHED_FLAG_RESET_ON_FORK resets the
// policy, nothing resets the mask), so the runtime's ordinary threads
// would be born on the real-time CPUs. The governor puts such a thread's
// mask back on its next look at the heap (unpinBorn). The locked threads
// (delay lines) do not have the problem: the runtime clones new threads
// for a locked one from its template thread.

// SetCPUs keeps the threads that Enter at priority from or above, and
// sysmon while it is real-time, on the CPUs of set from now on; an empty
// set lets them run anywhere again (threads already inside keep their
// CPUs until they leave). It is the process's setting: the last call
// wins. The lower priorities (the trace players, the sampler) stay free:
// one of them preempted on a shared CPU by a spinning thread above it
// would have nowhere else to run.
func SetCPUs(set unix.CPUSet, from int) error {
	gov.mu.Lock()
	defer gov.mu.Unlock()
	if set.Count() == 0 {
		gov.cpus = nil
		gov.unpinSysmon()
		return nil
	}
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(unix.Getpid(), &all); err != nil { // the main thread's: never pinned
		return fmt.Errorf("rtsched: CPUs of the process: %w", err)
	}
	var rest unix.CPUSet
	for cpu := range len(all) * 64 {
		if all.IsSet(cpu) && !set.IsSet(cpu) {
			rest.Set(cpu)
		}
		if set.IsSet(cpu) && !all.IsSet(cpu) {
			return fmt.Errorf("rtsched: CPU %d is not one the process may use", cpu)
		}
	}
	if rest.Count() == 0 {
		return fmt.Errorf("rtsched: the real-time threads' CPUs leave none for the rest")
	}
	gov.cpus, gov.cpusFrom, gov.allCPUs = &set, from, all
	if gov.sysmon != 0 {
		gov.pinSysmon()
	}
	return nil
}

// pin puts thread tid on the real-time CPUs if prio is among the pinned
// ones, and returns its mask before (nil: not pinned). gov.mu is held.
func (g *governor) pin(tid, prio int) *unix.CPUSet {
	if g.cpus == nil || prio < g.cpusFrom {
		return nil
	}
	var orig unix.CPUSet
	if unix.SchedGetaffinity(tid, &orig) != nil || unix.SchedSetaffinity(tid, g.cpus) != nil {
		g.errs.Add(1)
		return nil
	}
	return &orig
}

// pinSysmon puts the real-time sysmon on the real-time CPUs, remembering
// its mask. gov.mu is held.
func (g *governor) pinSysmon() {
	if g.sysmonMask != nil {
		if unix.SchedSetaffinity(g.sysmon, g.cpus) != nil {
			g.errs.Add(1)
		}
		return
	}
	g.sysmonMask = g.pin(g.sysmon, g.cpusFrom)
	g.born = map[int]bool{}
}

// unpinSysmon gives sysmon its mask back. gov.mu is held.
func (g *governor) unpinSysmon() {
	if g.sysmonMask == nil {
		return
	}
	if unix.SchedSetaffinity(g.sysmon, g.sysmonMask) != nil {
		g.errs.Add(1)
	}
	g.sysmonMask, g.born = nil, nil
}

// unpinBorn gives every normal thread born with the real-time CPUs' mask
// (a clone of the pinned sysmon, or of a thread it started) the process's
// CPUs. It looks at each thread once. gov.mu is held.
func (g *governor) unpinBorn() {
	if g.sysmonMask == nil {
		return
	}
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil || g.born[tid] || tid == g.sysmon {
			continue
		}
		g.born[tid] = true
		if _, rt := g.threads[tid]; rt {
			continue
		}
		var m unix.CPUSet
		if unix.SchedGetaffinity(tid, &m) != nil || m != *g.cpus {
			continue
		}
		if unix.SchedSetaffinity(tid, &g.allCPUs) != nil {
			g.errs.Add(1)
		}
		g.unpinned++
	}
}
