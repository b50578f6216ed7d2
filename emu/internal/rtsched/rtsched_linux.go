package rtsched

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// demoted is how a real-time thread runs during a collection: the highest
// normal priority, which keeps it ahead of other programs without starving
// the collector's threads.
func demoted() unix.SchedAttr { return unix.SchedAttr{Policy: unix.SCHED_NORMAL, Nice: -20} }

// pollEvery is how often the governor looks at the heap. The emulator
// allocates some 10–20 MB/s while it runs, so a collection starts at most
// a few hundred kB past its target.
const pollEvery = 10 * time.Millisecond

// thread is one real-time thread: its attributes under the governor and
// before Enter.
type thread struct {
	rt, orig unix.SchedAttr
	mask     *unix.CPUSet // its CPU mask before SetCPUs' CPUs; nil: not pinned
}

// governor is the process's: garbage collection and thread scheduling are
// process state, so there is one, shared by every caller of Enter.
type governor struct {
	// mu is held across every collection, so no thread turns real-time,
	// or leaves, while one runs.
	mu      sync.Mutex
	threads map[int]thread
	percent int           // GOGC when the governor took over
	stop    chan struct{} // closes the current governor goroutine; nil: not governing

	// sysmon is the runtime's monitor thread, real-time one priority
	// above the highest thread while any is (sysmon_linux.go); 0: left
	// as it was.
	sysmon     int
	sysmonOrig unix.SchedAttr
	sysmonPrio int

	// cpus are SetCPUs' CPUs for the threads at priority cpusFrom and up
	// (nil: anywhere), allCPUs the process's when it was called;
	// sysmonMask is sysmon's mask while it is pinned (nil: it is not), and
	// born the threads unpinBorn has looked at since (cpus_linux.go).
	cpus       *unix.CPUSet
	cpusFrom   int
	allCPUs    unix.CPUSet
	sysmonMask *unix.CPUSet
	born       map[int]bool
	unpinned   uint64

	cycles atomic.Uint64 // collections run
	errs   atomic.Uint64 // demotions or restorations the kernel refused

	// recent are the last len(recent) collections, oldest overwritten
	// first (under mu): a run's results say when its collections ran.
	recent [64]Collection
	next   int
}

// Collection is one collection the governor ran.
type Collection struct {
	Start time.Time
	Took  time.Duration
	// Demoted is how many real-time threads were demoted for it.
	Demoted int
}

var gov governor

// Enter makes the calling thread real-time, SCHED_FIFO at priority prio.
// The caller must have locked its goroutine to the thread
// (runtime.LockOSThread) and must call leave on the same thread before
// unlocking it; leave puts the thread back as it was. An error leaves the
// thread as it was; it wraps the kernel's errno (unix.EPERM without the
// privilege).
func Enter(prio int) (leave func() error, err error) {
	tid := unix.Gettid()
	orig, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return nil, fmt.Errorf("rtsched: get scheduling of thread %d: %w", tid, err)
	}
	rt := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: uint32(prio)}
	gov.mu.Lock()
	defer gov.mu.Unlock()
	if _, ok := gov.threads[tid]; ok {
		return nil, fmt.Errorf("rtsched: thread %d is real-time already", tid)
	}
	if gov.stop == nil {
		// Before the thread turns real-time: SetGCPercent(-1) waits for
		// a collection under way to finish.
		gov.percent = debug.SetGCPercent(-1)
		gov.stop = make(chan struct{})
		if gov.threads == nil {
			gov.threads = map[int]thread{}
		}
		go gov.run(gov.stop)
	}
	if err := unix.SchedSetAttr(tid, &rt, 0); err != nil {
		gov.release()
		return nil, fmt.Errorf("rtsched: thread %d to SCHED_FIFO %d: %w", tid, prio, err)
	}
	gov.threads[tid] = thread{rt: rt, orig: *orig, mask: gov.pin(tid, prio)}
	gov.raiseSysmon(prio)
	return func() error { return gov.leave(tid) }, nil
}

// leave restores thread tid and forgets it.
func (g *governor) leave(tid int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	th, ok := g.threads[tid]
	if !ok {
		return nil
	}
	delete(g.threads, tid)
	err := unix.SchedSetAttr(tid, &th.orig, 0)
	if th.mask != nil && unix.SchedSetaffinity(tid, th.mask) != nil {
		g.errs.Add(1)
	}
	g.release()
	if err != nil {
		return fmt.Errorf("rtsched: restore scheduling of thread %d: %w", tid, err)
	}
	return nil
}

// release hands collection back to the runtime once no thread is
// real-time. g.mu is held.
func (g *governor) release() {
	if len(g.threads) > 0 || g.stop == nil {
		return
	}
	close(g.stop)
	g.stop = nil
	debug.SetGCPercent(g.percent)
	if g.sysmon != 0 {
		g.unpinSysmon()
		if unix.SchedSetAttr(g.sysmon, &g.sysmonOrig, 0) != nil {
			g.errs.Add(1)
		}
		g.sysmon, g.sysmonPrio = 0, 0
	}
}

// raiseSysmon makes sysmon real-time one priority above prio, if it is not
// above it already. g.mu is held. A sysmon it cannot find or raise is
// counted as refused and left as it is: the threads are still real-time,
// as they were before this existed.
func (g *governor) raiseSysmon(prio int) {
	want := min(prio+1, 99)
	if g.sysmonPrio >= want {
		return
	}
	tid := g.sysmon
	if tid == 0 {
		var err error
		if tid, err = sysmonThread(); err != nil {
			g.errs.Add(1)
			return
		}
		orig, err := unix.SchedGetAttr(tid, 0)
		if err != nil {
			g.errs.Add(1)
			return
		}
		g.sysmonOrig = *orig
	}
	// Reset on fork: sysmon starts Ms itself (handoffp → newm) and a clone
	// inherits its policy; a real-time M running ordinary goroutines
	// starved the sleepers for 0.5–1 s in 12 runs of 14 without it.
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: uint32(want), Flags: unix.SCHED_FLAG_RESET_ON_FORK}
	if unix.SchedSetAttr(tid, &attr, 0) != nil {
		g.errs.Add(1)
		return
	}
	g.sysmon, g.sysmonPrio = tid, want
	if g.cpus != nil && prio >= g.cpusFrom {
		g.pinSysmon()
	}
}

// run polls the heap until stop is closed and collects when it has grown
// past the pacing target.
func (g *governor) run(stop chan struct{}) {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	target, on := nextTarget(heapLive(), g.percentOf(stop))
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		g.mu.Lock()
		if g.stop == stop {
			g.unpinBorn()
		}
		g.mu.Unlock()
		if !on || heapObjects() < target {
			continue
		}
		target, on = g.collect(stop)
	}
}

func (g *governor) percentOf(stop chan struct{}) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stop != stop {
		return -1
	}
	return g.percent
}

// collect runs one collection with every real-time thread demoted and
// returns the next target.
func (g *governor) collect(stop chan struct{}) (target uint64, on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stop != stop {
		return 0, false // the governor this goroutine ran for has ended
	}
	start := time.Now()
	for tid := range g.threads {
		d := demoted()
		if unix.SchedSetAttr(tid, &d, 0) != nil {
			g.errs.Add(1)
		}
	}
	runtime.GC()
	for tid, th := range g.threads {
		if unix.SchedSetAttr(tid, &th.rt, 0) != nil {
			g.errs.Add(1)
		}
	}
	g.cycles.Add(1)
	g.recent[g.next%len(g.recent)] = Collection{Start: start, Took: time.Since(start), Demoted: len(g.threads)}
	g.next++
	return nextTarget(heapLive(), g.percent)
}

// GC runs a collection now as the governor would: with the real-time
// threads demoted for its length when there are any, else as runtime.GC.
func GC() {
	gov.mu.Lock()
	stop := gov.stop
	gov.mu.Unlock()
	if stop == nil {
		runtime.GC()
		return
	}
	gov.collect(stop)
}

// Stats are the governor's counters since the process started.
type Stats struct {
	// Threads is how many threads are real-time now.
	Threads int
	// Sysmon is the runtime's monitor thread while it is real-time
	// (above the threads), else 0.
	Sysmon int
	// Collections counts the collections the governor ran (or GC).
	Collections uint64
	// Refused counts demotions and restorations the kernel refused; a
	// thread it refused to demote stayed real-time through a collection.
	Refused uint64
	// Unpinned counts the threads born on SetCPUs' CPUs (clones of the
	// pinned sysmon) that were given the process's CPUs back.
	Unpinned uint64
}

// Collections returns the governor's collections that started at or after
// since, oldest first (the last 64 at the most).
func Collections(since time.Time) []Collection {
	gov.mu.Lock()
	defer gov.mu.Unlock()
	var out []Collection
	for i := max(0, gov.next-len(gov.recent)); i < gov.next; i++ {
		if c := gov.recent[i%len(gov.recent)]; !c.Start.Before(since) {
			out = append(out, c)
		}
	}
	return out
}

// Snapshot returns the governor's counters.
func Snapshot() Stats {
	gov.mu.Lock()
	n, sysmon, unpinned := len(gov.threads), gov.sysmon, gov.unpinned
	gov.mu.Unlock()
	return Stats{Threads: n, Sysmon: sysmon, Collections: gov.cycles.Load(), Refused: gov.errs.Load(), Unpinned: unpinned}
}
