package procstat

import "time"

// Reading is one reading of a thread or a process, stamped with when it
// was taken.
type Reading struct {
	At   time.Time
	Stat Stat
	// Sched is the thread's scheduler statistics; for a process, the sum
	// over the threads of it and its descendants alive at the reading.
	Sched Sched
	// Process is set for a process's reading (ReadProcess): its CPU time
	// comes from Stat, which counts the threads and reaped children that
	// have ended, not from the sum of the live threads' Sched; it is in
	// clock ticks (10 ms), so readings a few seconds apart are needed for
	// a figure within 1 %.
	Process bool
}

// Usage is what a thread or a process got from the CPUs between two
// readings.
type Usage struct {
	Wall time.Duration
	// CPU is the CPU time used over the wall time: 1 is a whole core (a
	// process with several busy threads can exceed it).
	CPU float64
	// Wait is the time spent runnable but waiting for a CPU over the wall
	// time: how much the machine held it back.
	Wait float64
	// MeanWait is that wait per timeslice: how long, on average, each
	// wake-up waited before it ran; Slices is how many timeslices there
	// were.
	MeanWait time.Duration
	Slices   uint64
	// Kernel is the share of the CPU time spent in the kernel (system
	// time over user plus system, from the clock-tick counters: 10 ms
	// resolution), 0 with no tick counted. A packet thread that burns a
	// core without releasing packets spins in the kernel if this is high,
	// in its own or the Go runtime's code if low.
	Kernel float64
}

// Between is the usage from reading a to reading b of the same thread or
// process. Counters that went back (a thread of the process ended) count
// as 0.
func Between(a, b Reading) Usage {
	u := Usage{Wall: b.At.Sub(a.At)}
	if u.Wall <= 0 {
		return Usage{}
	}
	wall := float64(u.Wall)
	cpu := b.Sched.OnCPU - a.Sched.OnCPU
	if a.Process || b.Process {
		cpu = b.Stat.User + b.Stat.System - a.Stat.User - a.Stat.System
	}
	u.CPU = max(0, float64(cpu)/wall)
	if user, sys := b.Stat.User-a.Stat.User, b.Stat.System-a.Stat.System; user >= 0 && sys >= 0 && user+sys > 0 {
		u.Kernel = float64(sys) / float64(user+sys)
	}
	wait := max(0, b.Sched.Wait-a.Sched.Wait)
	u.Wait = float64(wait) / wall
	if b.Sched.Slices > a.Sched.Slices {
		u.Slices = b.Sched.Slices - a.Sched.Slices
		u.MeanWait = wait / time.Duration(u.Slices)
	}
	return u
}

// HostUsage is how the host's CPUs spent the time between two readings.
type HostUsage struct {
	// Steal is the time the hypervisor gave to others while this virtual
	// machine wanted to run, Busy the time not idle, both over all the
	// CPUs' time.
	Steal, Busy float64
	CPUs        int
}

// HostBetween is the host's usage from reading a to reading b.
func HostBetween(a, b Host) HostUsage {
	u := HostUsage{CPUs: b.CPUs}
	total := b.Total() - a.Total()
	if total <= 0 {
		return u
	}
	u.Steal = max(0, float64(b.Steal-a.Steal)/float64(total))
	idle := b.Idle + b.IOWait - a.Idle - a.IOWait
	u.Busy = min(1, max(0, 1-float64(idle)/float64(total)))
	return u
}
