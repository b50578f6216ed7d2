package emutest

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) {
	ServeWitness()
	os.Exit(m.Run())
}

// TestWitnessSeesTheMachineOnly: a witness that cannot run (stopped, as a
// vCPU the host took) logs the interval late; real-time threads of the
// test's own spinning on every CPU, as a stalled emulator's would, do not
// make it late.
func TestWitnessSeesTheMachineOnly(t *testing.T) {
	RequireRoot(t)
	Exclusive(t)
	w := startWitness(t)
	time.Sleep(20 * time.Millisecond)

	spinFrom := Mono()
	var spin sync.WaitGroup
	errs := make([]error, runtime.NumCPU())
	gaps := make([]time.Duration, len(errs)) // a spinner's longest time off its CPU
	for i := range errs {
		spin.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			orig, err := unix.SchedGetAttr(0, 0)
			if err == nil {
				err = unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 10}, 0)
			}
			if errs[i] = err; err != nil {
				return
			}
			defer unix.SchedSetAttr(0, orig, 0)
			for last, end := Mono(), spinFrom+200*time.Millisecond; last < end; {
				now := Mono()
				gaps[i] = max(gaps[i], now-last)
				last = now
			}
		})
	}
	spin.Wait()
	spinTo := Mono()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}

	time.Sleep(20 * time.Millisecond)
	stopFrom := Mono()
	if err := w.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond)
	if err := w.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	stopTo := Mono()
	time.Sleep(20 * time.Millisecond)
	if err := w.stop(); err != nil {
		t.Fatal(err)
	}

	spinLate, _ := w.late(spinFrom, spinTo)
	stopLate, _ := w.late(stopFrom, stopTo)
	t.Logf("late %v in %v of real-time spinning, %v in %v stopped; %d stalls logged", spinLate, spinTo-spinFrom, stopLate, stopTo-stopFrom, len(w.stalls))
	if stopLate < 100*time.Millisecond {
		t.Errorf("stopped for %v, the witness logged %v of it", stopTo-stopFrom, stopLate)
	}
	// Every CPU's witness saw the stop, and each was held with more than
	// 1 ms to go for most of it.
	perCPU := map[int]time.Duration{}
	for _, s := range w.stalls {
		if a, b := max(s.From, stopFrom), min(s.To, stopTo); b > a {
			perCPU[s.CPU] += b - a
		}
	}
	if len(perCPU) != runtime.NumCPU() {
		t.Errorf("stopped for %v, the witnesses of %d CPUs logged it (%v), want all %d", stopTo-stopFrom, len(perCPU), perCPU, runtime.NumCPU())
	}
	if held, cpu := w.held(stopFrom, stopTo, time.Millisecond); held < 0.6 {
		t.Errorf("stopped for %v, the witness of CPU %d was held %.0f %% of it with more than 1 ms to go, want over 60 %%", stopTo-stopFrom, cpu, 100*held)
	}
	// The spinners are only ever preempted by the witness, for
	// microseconds: one kept from its CPU for milliseconds saw the whole
	// machine stop, and the witness with it.
	if g := slices.Max(gaps); spinLate > (spinTo-spinFrom)/2 && g > 5*time.Millisecond {
		t.Skipf("the machine stalled while the threads spun: one was off its CPU for %v", g)
	}
	if spinLate > (spinTo-spinFrom)/2 {
		t.Errorf("real-time threads below the witness made it %v late in %v", spinLate, spinTo-spinFrom)
	}
}

// TestHostWatchSkips: a figure missed while the witness could not run for
// 60 ms skips the test, and so does one missed while a process outside
// the test's tree kept a CPU busy; one missed with the witness on time on
// a quiet machine does not.
func TestHostWatchSkips(t *testing.T) {
	RequireRoot(t)
	Exclusive(t)
	// The skips are recorded, not taken: a subtest's real skip would be
	// counted among the suite's skips on a busy machine.
	missed := func(h *HostWatch) (skipped bool) {
		r := &skipRecorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.SkipIfHostTook(r, "a figure")
		}()
		<-done
		if r.skipped != "" {
			t.Logf("would skip: %s", r.skipped)
		}
		return r.skipped != ""
	}
	loaded := watch()
	loaded.Witness(t)
	out, err := exec.Command("sh", "-c", "sh -c 'while :; do :; done' >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	loop, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(loop, syscall.SIGKILL) })
	time.Sleep(200 * time.Millisecond)
	if !missed(loaded) {
		t.Errorf("not skipped with a busy loop outside the test for 200 ms: %v", loaded.Load())
	}
	syscall.Kill(loop, syscall.SIGKILL)

	stalled := watch()
	stalled.Witness(t)
	if err := stalled.w.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	if err := stalled.w.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	if !missed(stalled) {
		t.Errorf("not skipped with the witness stopped for 60 ms: %v", stalled.w.stalls)
	}

}

// skipRecorder is a testing.TB whose Skipf records the reason and ends
// the calling goroutine, as SkipNow would, without skipping the test.
type skipRecorder struct {
	testing.TB
	skipped string
}

func (r *skipRecorder) Helper() {}

func (r *skipRecorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestWitnessHeld: held counts, per CPU, only the part of each stall
// beyond over that lies in the interval, and names the CPU that lost most.
func TestWitnessHeld(t *testing.T) {
	ms := time.Millisecond
	w := &witness{done: true, stalls: []Stall{
		{CPU: 0, From: 10 * ms, To: 12 * ms},   // 1 ms beyond over
		{CPU: 1, From: 20 * ms, To: 25 * ms},   // 4 ms beyond
		{CPU: 1, From: 30 * ms, To: 30500000},  // within over: nothing
		{CPU: 0, From: 95 * ms, To: 110 * ms},  // 5 ms of it inside, 4 beyond
		{CPU: 1, From: 200 * ms, To: 300 * ms}, // outside
	}}
	share, cpu := w.held(0, 100*ms, ms)
	if cpu != 0 || math.Abs(share-0.05) > 1e-9 {
		t.Errorf("held = %.4f on CPU %d, want 0.05 on CPU 0", share, cpu)
	}
	if share, _ := w.held(0, 100*ms, 10*ms); share != 0 {
		t.Errorf("held beyond 10 ms = %.4f, want 0", share)
	}
	if total, longest := w.late(0, 100*ms); total != 7*ms || longest != 5*ms {
		t.Errorf("late = %v, %v; want 7ms (CPU 0's) and 5ms", total, longest)
	}
	// The witness on time but for the idle VM's usual wake-ups (2–11 ms
	// a few times a second) is a machine that did not stall; 2 % of the
	// time or 20 ms at once is one that did.
	for _, c := range []struct {
		late, longest, span time.Duration
		stalled             bool
	}{
		{0, 0, time.Second, false},
		{11 * ms, 11 * ms, time.Second, false},
		{20 * ms, 11 * ms, time.Second, false},
		{21 * ms, 11 * ms, time.Second, true},
		{20 * ms, 20 * ms, 10 * time.Second, true},
	} {
		if got := machineStalled(c.late, c.longest, c.span); got != c.stalled {
			t.Errorf("late %v (%v at once) of %v: stalled %v, want %v", c.late, c.longest, c.span, got, c.stalled)
		}
	}
}
