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

// spinOneCore spins a locked goroutine for 300 ms and returns its
// thread's usage, the process's and the host's over the same time.
func spinOneCore(t *testing.T) (thread, process Usage, host HostUsage) {
	t.Helper()
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
	thread = <-ch
	p1, err := ReadProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	h1, err := ReadHost()
	if err != nil {
		t.Fatal(err)
	}
	process, host = Between(p0, p1), HostBetween(h0, h1)
	t.Logf("thread: %+v; process: CPU %.2f, wait %.3f; host: %+v", thread, process.CPU, process.Wait, host)
	return thread, process, host
}

// TestSpinUsesOneCore: a locked goroutine spinning for 300 ms reads, by
// its thread's schedstat, as on a CPU or waiting for one for the wall time
// (within a factor of 5: a busy machine moves the sum, see
// TestFidelitySpinUsesOneCore), its process as using at least a fifth of
// its CPU time, and the host as having the runtime's CPUs.
func TestSpinUsesOneCore(t *testing.T) {
	emutest.Exclusive(t) // the spin takes a core
	u, pu, hu := spinOneCore(t)
	if sum := u.CPU + u.Wait; sum < 0.2 || sum > 5 {
		t.Errorf("spinning thread: CPU %.2f + wait %.2f = %.2f of the wall time, want about 1 (within [0.2, 5])", u.CPU, u.Wait, sum)
	}
	if pu.CPU < u.CPU/5 {
		t.Errorf("process used %.2f of a core, its spinning thread %.2f", pu.CPU, u.CPU)
	}
	if hu.CPUs != runtime.NumCPU() {
		t.Errorf("host has %d CPUs, runtime says %d", hu.CPUs, runtime.NumCPU())
	}
}

// TestFidelitySpinUsesOneCore: a locked goroutine spinning for 300 ms is
// always either on a CPU or waiting for one, so by its thread's schedstat
// CPU and run-queue wait add up to the wall time, however busy the
// machine is (within [0.9, 1.05]: a reading's own cost and clock steps),
// its process used at least 0.9 of its share, and it spins in user space.
//
// Where the kernel accounts steal and interrupt time apart
// (CONFIG_PARAVIRT_TIME_ACCOUNTING, CONFIG_IRQ_TIME_ACCOUNTING), a thread
// is neither on the CPU nor waiting while the hypervisor or an interrupt
// takes its CPU, so the sum falls short on a busy host; and the kernel's
// share is sampled by ticks, which charge an interrupt the tick lands in
// to the thread's system time. Those misses go through the watch.
func TestFidelitySpinUsesOneCore(t *testing.T) {
	h := emutest.Fidelity(t)
	u, pu, hu := spinOneCore(t)
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

// descendants runs a shell that only waits while its child spins (as
// emu's endpoint process waits for gtlsserver) and reads it 100 ms and
// 500 ms after the start, while the child lives, and at 800 ms, once it
// has been reaped (its time then counts in the shell's cutime). The
// readings are due at those times; a busy machine can make them late.
func descendants(t *testing.T) (a, live, reaped Reading) {
	t.Helper()
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
	a = read(100*time.Millisecond, start)
	live = read(500*time.Millisecond, start)
	reaped = read(800*time.Millisecond, start)
	t.Logf("a %+v, live %+v, reaped %+v", a.Stat, live.Stat, reaped.Stat)
	return a, live, reaped
}

// TestReadProcessCountsDescendants: the shell's CPU time counts its
// child's, which spins for 0.6 s (at least 50 ms of it, a tenth of its
// spin while read, where the shell alone uses a few ms), and does not fall
// back once the child is reaped. Needs no root.
func TestReadProcessCountsDescendants(t *testing.T) {
	emutest.Exclusive(t) // a child spins a core
	_, live, reaped := descendants(t)
	if got, was := reaped.Stat.User+reaped.Stat.System, live.Stat.User+live.Stat.System; got < was {
		t.Errorf("after the child was reaped the tree's CPU time fell from %v to %v", was, got)
	}
	if got := reaped.Stat.User + reaped.Stat.System; got < 50*time.Millisecond {
		t.Errorf("the tree used %v of CPU in 0.8 s with a child spinning for 0.5 s of it, want at least 50ms", got)
	}
}

// TestFidelityReadProcessCountsDescendants: the child is on a CPU or
// waiting for one all the while it lives, so the shell reads CPU + wait of
// about 1 (at least 0.7) between the readings at 100 and 500 ms; CPU
// alone can be far less on a busy machine, but not under 0.1. The
// readings are due at fixed times, and the child's CPU share is the
// scheduler's: a busy machine makes either miss, so a miss goes through
// the watch.
func TestFidelityReadProcessCountsDescendants(t *testing.T) {
	h := emutest.Fidelity(t)
	a, live, _ := descendants(t)
	u := Between(a, live)
	t.Logf("child alive: CPU %.2f, wait %.2f", u.CPU, u.Wait)
	if u.CPU+u.Wait < 0.7 || u.CPU < 0.1 {
		h.Errorf(t, "while its child spins the shell reads CPU %.2f + wait %.2f, want about 1 (at least 0.7, CPU at least 0.1)", u.CPU, u.Wait)
	}
}
