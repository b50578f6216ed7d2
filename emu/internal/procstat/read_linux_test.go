package procstat

import (
	"fmt"
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
		settleRuntime()
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
	if r.b.Sched == (Sched{}) {
		t.Skip("schedstat reads 0 0 0: a kernel without CONFIG_SCHED_INFO counts no thread's CPU time there")
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

// settleRuntime sleeps the calling thread for a moment. schedstat's time
// on a CPU is the scheduler's running sum, brought up to date when the
// thread leaves the CPU or a tick lands on it: a spinning thread read by
// itself can show none of the last ticks' worth (or of the whole spin, on
// a nohz_full CPU, where one runnable task gets no tick), unless it is
// switched out first.
func settleRuntime() { time.Sleep(time.Millisecond) }

// TestSpinUsesOneCore: a locked goroutine spinning for 300 ms is always
// either on a CPU or waiting for one, so by its thread's schedstat CPU and
// run-queue wait add up to the wall time, however busy the machine is
// (loose: a reading's own cost and clock steps).
//
// Where the kernel accounts steal and interrupt time apart
// (CONFIG_PARAVIRT_TIME_ACCOUNTING, CONFIG_IRQ_TIME_ACCOUNTING), a thread
// is neither on the CPU nor waiting while the hypervisor or an interrupt
// takes its CPU, so the sum falls short on a busy host; and the kernel's
// share is sampled by ticks, which charge an interrupt the tick lands in
// to the thread's system time. Those misses go through the watch.
func TestSpinUsesOneCore(t *testing.T) {
	h := emutest.Exclusive(t)
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
		settleRuntime()
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
	var missed []string
	if sum := u.CPU + u.Wait; sum > 1.05 {
		t.Errorf("spinning thread: CPU %.2f + wait %.2f = %.2f of the wall time, want at most 1.05", u.CPU, u.Wait, sum)
	} else if sum < 0.9 {
		missed = append(missed, fmt.Sprintf("spinning thread: CPU %.2f + wait %.2f = %.2f of the wall time, want at least 0.9 (host steal %.3f)", u.CPU, u.Wait, sum, hu.Steal))
	}
	// Where the clocksource has no vDSO read every clock read is a system
	// call, and the spin is mostly the kernel's.
	if cs := clocksource(); u.Kernel > 0.5 && !slices.Contains([]string{"hpet", "acpi_pm", "pit", "jiffies", "refined-jiffies"}, cs) {
		missed = append(missed, fmt.Sprintf("a thread spinning on the clock (clocksource %s) in user space spent %.0f %% of its CPU time in the kernel, want at most 50 %%", cs, 100*u.Kernel))
	}
	h.Check(t, missed)
	if pu.CPU < u.CPU*0.9 {
		t.Errorf("process used %.2f of a core, its spinning thread %.2f", pu.CPU, u.CPU)
	}
	if hu.CPUs != runtime.NumCPU() {
		t.Errorf("host has %d CPUs, runtime says %d", hu.CPUs, runtime.NumCPU())
	}
}

// clocksource is the kernel's current clocksource ("" where it does not
// read).
func clocksource() string {
	b, _ := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	return strings.TrimSpace(string(b))
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
//
// The readings are due at fixed times after the start, and the child's
// CPU share is the scheduler's: a busy machine makes either miss, so those
// misses go through the watch.
func TestReadProcessCountsDescendants(t *testing.T) {
	h := emutest.Exclusive(t) // a child spins a core
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
	var missed []string
	if u.CPU+u.Wait < 0.7 || u.CPU < 0.1 {
		missed = append(missed, fmt.Sprintf("while its child spins the shell reads CPU %.2f + wait %.2f, want about 1 (at least 0.7, CPU at least 0.1)", u.CPU, u.Wait))
	}
	// After kill and wait, the child's time is in the shell's cutime:
	// the CPU counted from a must not fall back.
	if got, was := reaped.Stat.User+reaped.Stat.System, live.Stat.User+live.Stat.System; got < was {
		t.Errorf("after the child was reaped the tree's CPU time fell from %v to %v", was, got)
	}
	if reaped.Stat.User+reaped.Stat.System < 100*time.Millisecond {
		missed = append(missed, fmt.Sprintf("the tree used %v of CPU in 0.8 s with a child spinning for 0.5 s, want at least 100ms", reaped.Stat.User+reaped.Stat.System))
	}
	h.Check(t, missed)
}
