package emutest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A HostWatch follows what the machine takes from a timing test while it
// runs: the CPU time of every process outside the test's own tree (a
// laptop is never quiet: a build, a browser, a busy loop), the
// hypervisor's steal, as /proc/stat counts it, and, when Witness started
// one, the time a witness could not run, which also covers the stalls
// steal does not count. A figure missed while the machine did other work
// is the machine's, not emu's: the test skips, naming the figure and the
// evidence, where it would fail. Only a miss on a machine measured quiet
// fails.
type HostWatch struct {
	cpu   cpuClock
	start time.Duration
	load  others
	self  int
	w     *witness // nil: no witness (Exclusive's watch)
}

// hostLimit is the share of the time the host may take before a missed
// timing figure is its own (the fidelity verdict's steal limit), and
// hostStall the longest single stall: no emu thread can keep the witness
// that long, as it preempts all of them. loadLimit is the CPU time other
// processes may use, in CPUs, before the machine is not quiet: on the
// development VM, idle but for the test, they used 0.00–0.01 (the
// tools' own daemons); a code search beside a test, 0.3–1. The kernel
// counts CPU time in 10 ms ticks, so below loadFloor a short test cannot
// tell load from a tick that happened to land.
const (
	hostLimit = 0.02
	hostStall = 20 * time.Millisecond
	loadLimit = 0.05
	loadFloor = 3 * clockTick
)

// busy says whether others used more than loadLimit CPUs, and more than
// loadFloor in all.
func (l Load) busy() bool { return l.Share() > loadLimit && l.CPU > loadFloor }

// Witness starts a witness of the whole machine for h until the test
// ends, and begins the watch again from then. The package's TestMain must
// call ServeWitness first.
func (h *HostWatch) Witness(tb testing.TB) {
	tb.Helper()
	h.w = startWitness(tb)
	h.Reset()
}

func watch() *HostWatch {
	return &HostWatch{cpu: readCPU(), start: Mono(), load: readOthers(), self: os.Getpid()}
}

// Reset begins the watch again, as for a test's next attempt: what the
// host took before no longer counts.
func (h *HostWatch) Reset() { h.cpu, h.start, h.load = readCPU(), Mono(), readOthers() }

// Load is what other processes used since the watch began (or Reset).
func (h *HostWatch) Load() Load { return loadSince(h.load, readOthers(), h.self) }

// Errorf reports a missed timing figure: the test skips, naming it and
// the evidence, when the machine was not quiet (SkipIfHostTook), and
// fails otherwise, saying how quiet it was.
func (h *HostWatch) Errorf(tb testing.TB, format string, args ...any) {
	tb.Helper()
	what := fmt.Sprintf(format, args...)
	h.SkipIfHostTook(tb, what)
	tb.Errorf("%s (on a quiet machine: %v)", what, h.Load())
}

// Fatalf is Errorf that ends the test.
func (h *HostWatch) Fatalf(tb testing.TB, format string, args ...any) {
	tb.Helper()
	what := fmt.Sprintf(format, args...)
	h.SkipIfHostTook(tb, what)
	tb.Fatalf("%s (on a quiet machine: %v)", what, h.Load())
}

// Check reports each missed figure in missed as Errorf would, skipping
// once for all of them when the machine was not quiet.
func (h *HostWatch) Check(tb testing.TB, missed []string) {
	tb.Helper()
	if len(missed) == 0 {
		return
	}
	h.SkipIfHostTook(tb, strings.Join(missed, "; "))
	load := h.Load()
	for _, m := range missed {
		tb.Errorf("%s (on a quiet machine: %v)", m, load)
	}
}

// SkipIfHostTook skips tb, saying so, when since the watch began other
// processes used more than 0.05 CPUs, the hypervisor took more than 2 %
// of the CPUs, or the witness was kept from running for more than 2 % of
// the time or for 20 ms at once. Call it where the figure (what) failed.
// The kernel's real-time throttling, which holds every real-time thread
// of a CPU for 50 ms once they ran 950 ms of a second, would hold the
// witness too: a test whose loops spin that long fails on its own CPU
// figures.
func (h *HostWatch) SkipIfHostTook(tb testing.TB, what string) {
	tb.Helper()
	if why, busy := h.Busy(); busy {
		tb.Skipf("%s%s while %s", BusyHost, what, why)
	}
	if h.w == nil {
		return
	}
	now := Mono()
	h.stop(tb)
	late, longest := h.w.late(h.start, now)
	if machineStalled(late, longest, now-h.start) {
		tb.Skipf("%s%s while the whole machine stalled: a real-time witness process was kept from running %v of %v, %v at once: the host's figure, not emu's",
			BusyHost, what, late.Round(time.Millisecond), (now - h.start).Round(time.Millisecond), longest.Round(time.Millisecond))
	}
}

// machineStalled says whether a witness late for late in all, longest at
// once, over span shows the whole machine stalled: more than hostLimit of
// the time, or hostStall at once.
func machineStalled(late, longest, span time.Duration) bool {
	return float64(late) > hostLimit*float64(span) || longest >= hostStall
}

// SkipIfHostHeld skips tb, saying so, when the machine was not quiet
// (SkipIfHostTook), or when since the watch began the witness of some CPU
// was held with more than over of a stall still to come for at least
// share of the time. A tail figure ("at most 1 % of releases more than
// 1 ms late") is the host's when the host alone held a CPU that long: a
// thread due there then was late by more than over, whatever emu did.
// Call it where the figure (what) failed, with the share of events the
// test found beyond over, halved: the host must account for at least half
// of the miss.
func (h *HostWatch) SkipIfHostHeld(tb testing.TB, over time.Duration, share float64, what string) {
	tb.Helper()
	h.SkipIfHostTook(tb, what)
	h.SkipIfHostHeldDuring(tb, h.start, Mono(), over, share, what)
}

// SkipIfHostHeldDuring is SkipIfHostHeld's witness test alone, over
// [from, to] on Mono's clock: the interval in which a figure (what) that
// lasts only milliseconds went wrong, such as a delay trace's jump that a
// probe held up by the machine arrived too late to see.
func (h *HostWatch) SkipIfHostHeldDuring(tb testing.TB, from, to, over time.Duration, share float64, what string) {
	tb.Helper()
	if h.w == nil || to <= from {
		return
	}
	h.stop(tb)
	if held, cpu := h.w.held(from, to, over); held > 0 && held >= share {
		tb.Skipf("%s%s while the machine held CPU %d's real-time witness with more than %v still to wait for %.2f %% of %v: the host's figure, not emu's",
			BusyHost, what, cpu, over, 100*held, (to - from).Round(time.Millisecond))
	}
}

// Busy says whether, since the watch began, other processes used more
// than 0.05 CPUs or the hypervisor took more than 2 % of the CPUs, and
// the evidence. It leaves the witness running: a test deciding whether
// to measure again asks it, and SkipIfHostTook at the end.
func (h *HostWatch) Busy() (evidence string, busy bool) {
	if l := h.Load(); l.busy() {
		return fmt.Sprintf("%v: the machine's figure, not emu's", l), true
	}
	if s := stealSince(h.cpu); s > hostLimit {
		return fmt.Sprintf("the hypervisor took %.1f %% of the CPUs: the host's figure, not emu's", 100*s), true
	}
	return "", false
}

// SkipIfHostTookDuring skips tb, saying so, when other processes used more
// than 0.05 CPUs since the watch began, or the witness was kept from
// running for at least half of [from, to] (on Mono's clock), the interval
// in which the figure (what) went wrong. A stall of emu's own making
// leaves the witness on time, and the test fails as it should.
func (h *HostWatch) SkipIfHostTookDuring(tb testing.TB, from, to time.Duration, what string) {
	tb.Helper()
	if l := h.Load(); l.busy() {
		tb.Skipf("%s%s while %v: the machine's figure, not emu's", BusyHost, what, l)
	}
	if h.w == nil {
		return
	}
	h.stop(tb)
	if late, _ := h.w.late(from, to); to > from && late >= (to-from)/2 {
		tb.Skipf("%s%s while the whole machine stalled: a real-time witness process was kept from running %v of the same %v", BusyHost, what, late.Round(time.Millisecond), (to - from).Round(time.Millisecond))
	}
}

func (h *HostWatch) stop(tb testing.TB) {
	tb.Helper()
	if err := h.w.stop(); err != nil {
		tb.Fatalf("emutest: %v", err)
	}
}

// cpuClock is the machine's CPU time as /proc/stat's first line counts
// it: every state's ticks, and the hypervisor's steal among them.
type cpuClock struct{ total, steal uint64 }

// readCPU reads the CPU clock; the zero clock when /proc/stat does not
// read (stealSince is then 0).
func readCPU() cpuClock {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuClock{}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuClock{}
	}
	var c cpuClock
	for i, s := range f[1:] {
		v, _ := strconv.ParseUint(s, 10, 64)
		if i < 8 { // guest time is counted in user already
			c.total += v
		}
		if i == 7 {
			c.steal = v
		}
	}
	return c
}

// stealSince is the share of the CPUs' time the hypervisor took since c.
func stealSince(c cpuClock) float64 {
	now := readCPU()
	if c.total == 0 || now.total <= c.total {
		return 0
	}
	return float64(now.steal-c.steal) / float64(now.total-c.total)
}
