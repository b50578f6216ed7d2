package rtsched

// The emulator's real-time (SCHED_FIFO) priorities, all taken from here
// because their order is the design. From the top:
//
//   - The kernel's own real-time threads (threaded interrupts, priority
//     50 and up) stay above everything of the emulator's.
//   - PacketPriority: the packet loops that release packets at their due
//     time, the delay lines (nfq.SchedRealtime). Nothing of the
//     emulator's preempts them, so a due packet leaves even while other
//     programs keep every CPU busy; SetCPUs pins this priority and up.
//   - PlayerPriority, one below: the trace players, the link sampler,
//     and the PDCP proxies' loops while light (emu/dcproxy, gsofwd's
//     RTLoop). Above normal tasks, so they are not left waiting behind
//     the endpoints for a CPU (as goroutines the players took their
//     changes up to 1.3 s late while two busy processes shared a 2-core
//     VM); below the delay lines, so a delay line that wakes while one
//     of them works runs first, and the work is stretched instead (the
//     sampler's Took records it). SetCPUs leaves them free.
const (
	PacketPriority = 10
	PlayerPriority = PacketPriority - 1
)
