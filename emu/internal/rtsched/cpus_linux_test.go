package rtsched

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestSetCPUsPinsTheUpperThreads: after SetCPUs, a thread entering at the
// pinned priority runs on the set's CPUs and sysmon with it, one entering
// below stays free, a normal thread born with the set's mask (as sysmon's
// clones are) gets the process's CPUs back on the governor's next look,
// and leaving, and clearing the set, put every mask back.
func TestSetCPUsPinsTheUpperThreads(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	all, last := emutest.SpareCPU(t)
	var set unix.CPUSet
	set.Set(last)
	if err := SetCPUs(all, 10); err == nil {
		t.Error("SetCPUs took every CPU of the process")
	}
	if err := SetCPUs(set, 10); err != nil {
		t.Fatal(err)
	}
	defer SetCPUs(unix.CPUSet{}, 0)

	mask := func(tid int) unix.CPUSet {
		t.Helper()
		var m unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	// thread runs on a locked thread of its own: it enters at prio (0: stays
	// normal, its mask set to set, as a clone of the pinned sysmon's would
	// be), reports its id and waits for release.
	type thread struct {
		tid     int
		release chan struct{}
		done    chan error
	}
	start := func(prio int) thread {
		th := thread{release: make(chan struct{}), done: make(chan error, 1)}
		ids := make(chan int, 1)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			leave := func() error { return nil }
			var err error
			if prio > 0 {
				leave, err = Enter(prio)
			} else {
				err = unix.SchedSetaffinity(0, &set)
			}
			if err != nil {
				ids <- 0
				th.done <- err
				return
			}
			ids <- unix.Gettid()
			<-th.release
			th.done <- leave()
		}()
		if th.tid = <-ids; th.tid == 0 {
			t.Fatal(<-th.done)
		}
		return th
	}
	stop := func(th thread) {
		close(th.release)
		if err := <-th.done; err != nil {
			t.Fatal(err)
		}
	}
	upper, lower := start(10), start(9)
	if m := mask(upper.tid); m != set {
		t.Errorf("thread at priority 10 on %d CPUs, want CPU %d alone", m.Count(), last)
	}
	if m := mask(lower.tid); m != all {
		t.Errorf("thread at priority 9 on %d CPUs, want the process's %d", m.Count(), all.Count())
	}
	sysmon := Snapshot().Sysmon
	if sysmon == 0 {
		t.Fatal("sysmon not real-time while threads are")
	}
	if m := mask(sysmon); m != set {
		t.Errorf("sysmon on %d CPUs, want CPU %d alone", m.Count(), last)
	}
	before := Snapshot().Unpinned
	born := start(0)
	deadline := time.Now().Add(20 * pollEvery)
	for mask(born.tid) == set && time.Now().Before(deadline) {
		time.Sleep(pollEvery)
	}
	if m := mask(born.tid); m != all || Snapshot().Unpinned != before+1 {
		t.Errorf("a normal thread born on CPU %d: on %d CPUs after %v, %d unpinned; want the process's %d, one", last, m.Count(), 20*pollEvery, Snapshot().Unpinned-before, all.Count())
	}
	stop(born)
	stop(upper)
	if m := mask(upper.tid); m != all {
		t.Errorf("thread left priority 10 on %d CPUs, want the process's %d", m.Count(), all.Count())
	}
	stop(lower)
	if m := mask(sysmon); m != all {
		t.Errorf("sysmon back to normal on %d CPUs, want the process's %d", m.Count(), all.Count())
	}
}
