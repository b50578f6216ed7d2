package emutest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A witness is a process of its own, real-time above every thread emu
// makes real-time, with one thread pinned to each CPU that sleeps in 1 ms
// steps beside a timing test and logs each wake-up more than 1 ms late.
// When the machine itself stalls (a busy host takes the guest's vCPUs,
// for 2–11 ms many times a second on the idle development VM and for
// 50–140 ms at a time on a busy one, and /proc/stat's steal does not
// always count it) the witness of that CPU wakes late over the same
// interval as the test's threads there; a stall of the test's own making
// (its runtime, its priorities, its scheduling) leaves the witnesses on
// time, as they preempt every such thread and allocate nothing for a
// collector to stop them. One witness thread free to move would see only
// the CPU it happened to be on. Timing tests ask them, through a
// HostWatch, whether the machine was absent when their figure went wrong.
//
// The witness is the test binary itself run again: the package's TestMain
// calls ServeWitness first.
type witness struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stalls []Stall
	err    error
	done   bool
}

// A Stall is an interval in which the witness of one CPU slept late, on
// CLOCK_MONOTONIC as Mono reads it.
type Stall struct {
	CPU      int
	From, To time.Duration
}

// witnessEnv tells the test binary to be a witness (see ServeWitness).
const witnessEnv = "EMUTEST_WITNESS"

const (
	witnessPrio  = 50 // above emu's real-time threads (10) and the tests'
	witnessStep  = time.Millisecond
	witnessLate  = time.Millisecond
	witnessSlots = 4096 // stalls kept per CPU; a machine late 4096 times is gone anyway
)

// Mono reads CLOCK_MONOTONIC, the clock the witness logs on: time.Now's
// monotonic reading cannot be compared across processes.
// It reads the clock in a raw system call, which never gives up the
// thread's P (see serveWitness).
func Mono() time.Duration {
	var ts unix.Timespec
	unix.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_MONOTONIC, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// ServeWitness makes this process a witness when startWitness started it,
// and returns otherwise. TestMain calls it before anything else.
func ServeWitness() {
	if os.Getenv(witnessEnv) == "" {
		return
	}
	os.Exit(serveWitness(os.Stdin, os.Stdout))
}

func serveWitness(in io.Reader, out io.Writer) int {
	debug.SetGCPercent(-1)
	// The witness threads may run on any CPU: a process inherits the
	// affinity of the thread that started it, and runtime.NumCPU counts
	// only that set's CPUs. The kernel keeps of the full set what the
	// machine (and its cpuset) allows.
	var all unix.CPUSet
	for i := range len(all) * 64 {
		all.Set(i)
	}
	_ = unix.SchedSetaffinity(0, &all)
	// The kernel writes only its own mask's bytes: the rest must be 0.
	all.Zero()
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		fmt.Fprintf(out, "error sched_getaffinity: %v\n", err)
		return 1
	}
	var cpus []int
	for i := range len(all) * 64 {
		if all.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	// Each sleeping thread keeps its P throughout (raw system calls,
	// below); the goroutine that reads in needs another.
	runtime.GOMAXPROCS(len(cpus) + 1)
	var stop atomic.Bool
	ready := make(chan error, len(cpus))
	logs := make([][]Stall, len(cpus))
	var wg sync.WaitGroup
	for i, cpu := range cpus {
		logs[i] = make([]Stall, 0, witnessSlots)
		wg.Go(func() { logs[i] = witnessCPU(cpu, logs[i], &stop, ready) })
	}
	for range cpus {
		if err := <-ready; err != nil {
			stop.Store(true)
			fmt.Fprintf(out, "error %v\n", err)
			return 1
		}
	}
	go func() {
		io.Copy(io.Discard, in)
		stop.Store(true)
	}()
	fmt.Fprintln(out, "ready")
	wg.Wait()
	w := bufio.NewWriter(out)
	for _, log := range logs {
		for _, s := range log {
			fmt.Fprintf(w, "%d %d %d\n", s.CPU, s.From, s.To)
		}
	}
	w.Flush()
	return 0
}

// witnessCPU sleeps in witnessStep steps on cpu, real-time, until stop,
// logging each wake-up more than witnessLate late in stalls (up to its
// capacity). It reports on ready once it runs there, or why not.
func witnessCPU(cpu int, stalls []Stall, stop *atomic.Bool, ready chan<- error) []Stall {
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		ready <- fmt.Errorf("CPU %d: sched_setaffinity: %w", cpu, err)
		return stalls
	}
	if err := unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: witnessPrio}, 0); err != nil {
		ready <- fmt.Errorf("SCHED_FIFO %d: %w", witnessPrio, err)
		return stalls
	}
	ready <- nil
	ts := unix.NsecToTimespec(int64(witnessStep))
	for !stop.Load() {
		t0 := Mono()
		// A raw system call: the runtime's own (entersyscall) lets the
		// scheduler hand the P away while the thread sleeps, and a thread
		// that wakes without one waits for an ordinary thread of the
		// runtime to give it one back; with real-time threads spinning on
		// every CPU that wait lasted the whole 200 ms of
		// TestWitnessSeesTheMachineOnly, once in five runs on a busy
		// machine.
		unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
		t1 := Mono()
		if t1-t0-witnessStep > witnessLate && len(stalls) < cap(stalls) {
			stalls = append(stalls, Stall{cpu, t0 + witnessStep, t1})
		}
	}
	return stalls
}

// startWitness starts a witness and returns once it is real-time and
// sleeping; it stops when the test ends, or at stop.
func startWitness(tb testing.TB) *witness {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatalf("emutest: witness: %v", err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), witnessEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatalf("emutest: witness: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatalf("emutest: witness: %v", err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("emutest: witness: %v", err)
	}
	w := &witness{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	tb.Cleanup(func() { w.stop() })
	line, err := w.out.ReadString('\n')
	if line != "ready\n" {
		w.stop()
		if err != nil && line == "" {
			tb.Fatalf("emutest: the witness did not start (%v): the package's TestMain must call emutest.ServeWitness first", err)
		}
		tb.Fatalf("emutest: witness: %s", strings.TrimSpace(line))
	}
	return w
}

// stop ends the witness and reads its log; it returns the log's error, if
// any. Calls after the first return the same.
func (w *witness) stop() error {
	if w.done {
		return w.err
	}
	w.done = true
	w.stdin.Close()
	for {
		line, err := w.out.ReadString('\n')
		if f := strings.Fields(line); len(f) == 3 {
			cpu, err0 := strconv.Atoi(f[0])
			from, err1 := strconv.ParseInt(f[1], 10, 64)
			to, err2 := strconv.ParseInt(f[2], 10, 64)
			if err0 == nil && err1 == nil && err2 == nil {
				w.stalls = append(w.stalls, Stall{cpu, time.Duration(from), time.Duration(to)})
			} else if w.err == nil {
				w.err = fmt.Errorf("witness log line %q", line)
			}
		}
		if err != nil {
			break
		}
	}
	if err := w.cmd.Wait(); err != nil && w.err == nil {
		w.err = fmt.Errorf("witness: %w", err)
	}
	return w.err
}

// late is how long the witnesses slept late within [from, to]: in all on
// the CPU that lost the most time, and at once on any. Both are 0 if the
// machine was there throughout. It stops the witness first.
func (w *witness) late(from, to time.Duration) (total, longest time.Duration) {
	w.stop()
	perCPU := map[int]time.Duration{}
	for _, s := range w.stalls {
		if a, b := max(s.From, from), min(s.To, to); b > a {
			perCPU[s.CPU] += b - a
			total = max(total, perCPU[s.CPU])
			longest = max(longest, b-a)
		}
	}
	return total, longest
}

// held is the share of [from, to] in which the witness of one CPU was held
// with more than over of its stall still to come, on the CPU where that
// share is largest: a thread there due at such a time was late by more
// than over whatever it did. It stops the witness first.
func (w *witness) held(from, to, over time.Duration) (share float64, cpu int) {
	w.stop()
	if to <= from {
		return 0, 0
	}
	perCPU := map[int]time.Duration{}
	for _, s := range w.stalls {
		if a, b := max(s.From, from), min(s.To, to); b-a > over {
			perCPU[s.CPU] += b - a - over
		}
	}
	var worst time.Duration
	for c, d := range perCPU {
		if d > worst || d == worst && c < cpu {
			worst, cpu = d, c
		}
	}
	return float64(worst) / float64(to-from), cpu
}
