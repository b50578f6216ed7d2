package procstat

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestReadOwnThread: a goroutine locked to its thread learns its id, names
// the thread, and finds itself under that name in its process's threads;
// spinning adds CPU time. Needs no root.
func TestReadOwnThread(t *testing.T) {
	type result struct {
		tid    int
		a, b   Reading
		errs   []error
		inList bool
	}
	ch := make(chan result)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var r result
		r.tid = TID()
		if err := NameThread("emu-test-loop-name-too-long"); err != nil {
			r.errs = append(r.errs, err)
		}
		tids, err := Threads(os.Getpid())
		r.errs = append(r.errs, err)
		r.inList = slices.Contains(tids, r.tid)
		r.a, err = ReadThread(os.Getpid(), r.tid)
		r.errs = append(r.errs, err)
		for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		}
		r.b, err = ReadThread(os.Getpid(), r.tid)
		r.errs = append(r.errs, err)
		ch <- r
	}()
	r := <-ch
	for _, err := range r.errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !r.inList {
		t.Errorf("thread %d not among the process's threads", r.tid)
	}
	if r.b.Stat.Name != "emu-test-loop-n" {
		t.Errorf("thread name %q, want the first 15 bytes of the one set", r.b.Stat.Name)
	}
	if r.b.Sched.OnCPU <= r.a.Sched.OnCPU || r.b.Sched.Slices < r.a.Sched.Slices {
		t.Errorf("spinning added no CPU time: %+v then %+v", r.a.Sched, r.b.Sched)
	}
}

// TestSpinUsesOneCore: a locked goroutine spinning for 300 ms is always
// either on a CPU or waiting for one, so by its thread's schedstat CPU and
// run-queue wait add up to the wall time, however busy the machine is
// (loose: a reading's own cost and clock steps).
func TestSpinUsesOneCore(t *testing.T) {
	emutest.Exclusive(t)
	pid := os.Getpid()
	p0, err := ReadProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	h0, err := ReadHost()
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan Usage)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		a, _ := ReadThread(pid, TID())
		for start := time.Now(); time.Since(start) < 300*time.Millisecond; {
		}
		b, _ := ReadThread(pid, TID())
		ch <- Between(a, b)
	}()
	u := <-ch
	p1, err := ReadProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	h1, err := ReadHost()
	if err != nil {
		t.Fatal(err)
	}
	pu, hu := Between(p0, p1), HostBetween(h0, h1)
	t.Logf("thread: %+v; process: CPU %.2f, wait %.3f; host: %+v", u, pu.CPU, pu.Wait, hu)
	if sum := u.CPU + u.Wait; sum < 0.9 || sum > 1.05 {
		t.Errorf("spinning thread: CPU %.2f + wait %.2f = %.2f of the wall time, want about 1", u.CPU, u.Wait, sum)
	}
	if u.Kernel > 0.5 {
		t.Errorf("a thread spinning on the clock in user space spent %.0f %% of its CPU time in the kernel", 100*u.Kernel)
	}
	if pu.CPU < u.CPU*0.9 {
		t.Errorf("process used %.2f of a core, its spinning thread %.2f", pu.CPU, u.CPU)
	}
	if hu.CPUs != runtime.NumCPU() {
		t.Errorf("host has %d CPUs, runtime says %d", hu.CPUs, runtime.NumCPU())
	}
}

func TestKsoftirqd(t *testing.T) {
	pids, err := Ksoftirqd()
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) != runtime.NumCPU() {
		t.Errorf("%d ksoftirqd threads, %d CPUs", len(pids), runtime.NumCPU())
	}
	for _, pid := range pids {
		r, err := ReadThread(pid, pid)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(r.Stat.Name, "ksoftirqd/") {
			t.Errorf("pid %d is %q", pid, r.Stat.Name)
		}
	}
}

// TestReadProcessCountsDescendants: a shell that only waits while its
// child spins (as emu's endpoint process waits for gtlsserver) reads as
// using the child's CPU, while the child runs and once it has been reaped
// (its time then counts in the shell's cutime). Needs no root.
func TestReadProcessCountsDescendants(t *testing.T) {
	cmd := exec.Command("sh", "-c", "yes >/dev/null & y=$!; sleep 0.6; kill $y; wait $y; sleep 0.4")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sh: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pid := cmd.Process.Pid
	read := func(at time.Duration, start time.Time) Reading {
		time.Sleep(time.Until(start.Add(at)))
		r, err := ReadProcess(pid)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	start := time.Now()
	a := read(100*time.Millisecond, start)
	live := read(500*time.Millisecond, start)
	reaped := read(800*time.Millisecond, start)
	// The child is on a CPU or waiting for one all the while it lives, so
	// CPU + wait is about 1 for the 0.4 s it lives between a and live;
	// CPU alone can be far less on a busy machine, but not nothing.
	u := Between(a, live)
	t.Logf("child alive: CPU %.2f, wait %.2f; a %+v, live %+v", u.CPU, u.Wait, a.Stat, live.Stat)
	if u.CPU+u.Wait < 0.7 || u.CPU < 0.1 {
		t.Errorf("while its child spins the shell reads CPU %.2f + wait %.2f, want about 1", u.CPU, u.Wait)
	}
	// After kill and wait, the child's time is in the shell's cutime:
	// the CPU counted from a must not fall back.
	if got, was := reaped.Stat.User+reaped.Stat.System, live.Stat.User+live.Stat.System; got < was {
		t.Errorf("after the child was reaped the tree's CPU time fell from %v to %v", was, got)
	}
	if reaped.Stat.User+reaped.Stat.System < 100*time.Millisecond {
		t.Errorf("the tree used %v of CPU in 0.8 s with a child spinning for 0.5 s", reaped.Stat.User+reaped.Stat.System)
	}
}
