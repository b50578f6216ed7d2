package nfq

import (
	"fmt"

	"github.com/dc-emu/emu/emu/internal/rtsched"
)

// Sched is how the thread of a packet loop is scheduled.
type Sched int

const (
	// SchedRealtime (the zero value) runs the thread under SCHED_FIFO at
	// priority rtsched.PacketPriority, so a due packet is released even while
	// other programs keep every CPU busy. This is where netem does its work
	// (softirq context, ahead of every task); the loop sleeps between
	// packets, and the kernel's RT throttling keeps a share of each CPU for
	// normal tasks in any case.
	SchedRealtime Sched = iota
	// SchedNice runs the thread at nice −20: a larger share of the CPU and
	// earlier wake-ups among normal tasks.
	SchedNice
	// SchedDefault leaves the thread's scheduling as the process has it.
	SchedDefault
)

func (s Sched) String() string {
	switch s {
	case SchedDefault:
		return "default"
	case SchedNice:
		return "nice -20"
	case SchedRealtime:
		return fmt.Sprintf("SCHED_FIFO %d", rtsched.PacketPriority)
	}
	return fmt.Sprintf("sched(%d)", int(s))
}
