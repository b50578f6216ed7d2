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
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A witness is a process of its own, real-time above every thread emu
// makes real-time, that sleeps in 1 ms steps beside a timing test and logs
// each wake-up more than 5 ms late. When the machine itself stalls (a
// busy host takes the guest's vCPUs for 50–140 ms at a time, and
// /proc/stat's steal does not always count it) the witness wakes late over
// the same interval as the test's threads; a stall of the test's own
// making (its runtime, its priorities, its scheduling) leaves the witness
// on time, as it preempts them and allocates nothing for a collector to
// stop it. Timing tests ask it, through a HostWatch, whether the machine
// was absent when their figure went wrong.
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

// A Stall is an interval in which the witness slept late, on
// CLOCK_MONOTONIC as Mono reads it.
type Stall struct{ From, To time.Duration }

// witnessEnv tells the test binary to be a witness (see ServeWitness).
const witnessEnv = "EMUTEST_WITNESS"

const (
	witnessPrio  = 50 // above emu's real-time threads (10) and the tests'
	witnessStep  = time.Millisecond
	witnessLate  = 5 * time.Millisecond
	witnessSlots = 4096 // stalls kept; a machine late 4096 times is gone anyway
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
	// The sleeping loop keeps its P throughout (raw system calls, below);
	// the goroutine that reads in needs another.
	runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))
	runtime.LockOSThread()
	// Any CPU: a process inherits the affinity of the thread that started
	// it, and a witness pinned to one CPU would miss the others' stalls.
	// (runtime.NumCPU counts only the inherited set's CPUs.)
	var all unix.CPUSet
	for i := range len(all) * 64 {
		all.Set(i)
	}
	_ = unix.SchedSetaffinity(0, &all)
	if err := unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: witnessPrio}, 0); err != nil {
		fmt.Fprintf(out, "error SCHED_FIFO %d: %v\n", witnessPrio, err)
		return 1
	}
	var stop atomic.Bool
	go func() {
		io.Copy(io.Discard, in)
		stop.Store(true)
	}()
	stalls := make([]Stall, 0, witnessSlots)
	fmt.Fprintln(out, "ready")
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
			stalls = append(stalls, Stall{t0 + witnessStep, t1})
		}
	}
	w := bufio.NewWriter(out)
	for _, s := range stalls {
		fmt.Fprintf(w, "%d %d\n", s.From, s.To)
	}
	w.Flush()
	return 0
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
		if f := strings.Fields(line); len(f) == 2 {
			from, err1 := strconv.ParseInt(f[0], 10, 64)
			to, err2 := strconv.ParseInt(f[1], 10, 64)
			if err1 == nil && err2 == nil {
				w.stalls = append(w.stalls, Stall{time.Duration(from), time.Duration(to)})
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

// late is how long the witness slept late within [from, to] in all and
// at once: 0 if the machine was there throughout. It stops the witness
// first.
func (w *witness) late(from, to time.Duration) (total, longest time.Duration) {
	w.stop()
	for _, s := range w.stalls {
		if a, b := max(s.From, from), min(s.To, to); b > a {
			total += b - a
			longest = max(longest, b-a)
		}
	}
	return total, longest
}
