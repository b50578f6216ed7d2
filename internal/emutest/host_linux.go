package emutest

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A HostWatch follows what the host takes from the guest while a timing
// test runs: the hypervisor's steal, as /proc/stat counts it, and the time
// a witness could not run, which also covers the stalls steal does not
// count. A figure missed while the host took more than a little is the
// host's, not emu's, and the test skips, saying so, where it would fail.
type HostWatch struct {
	cpu   cpuClock
	start time.Duration
	w     *witness
}

// hostLimit is the share of the time the host may take before a missed
// timing figure is its own (the fidelity verdict's steal limit), and
// hostStall the longest single stall: no emu thread can keep the witness
// that long, as it preempts all of them.
const (
	hostLimit = 0.02
	hostStall = 20 * time.Millisecond
)

// WatchHost starts watching the host, and a witness for it, until the test
// ends.
func WatchHost(tb testing.TB) *HostWatch {
	tb.Helper()
	return &HostWatch{cpu: readCPU(), start: Mono(), w: startWitness(tb)}
}

// Reset begins the watch again, as for a test's next attempt: what the
// host took before no longer counts.
func (h *HostWatch) Reset() { h.cpu, h.start = readCPU(), Mono() }

// SkipIfHostTook skips tb, saying so, when since WatchHost the hypervisor
// took more than 2 % of the CPUs, or the witness was kept from running for
// more than 2 % of the time or for 20 ms at once. Call it where the
// figure (what) failed. The kernel's real-time throttling, which holds
// every real-time thread of a CPU for 50 ms once they ran 950 ms of a
// second, would hold the witness too: a test whose loops spin that long
// fails on its own CPU figures.
func (h *HostWatch) SkipIfHostTook(tb testing.TB, what string) {
	tb.Helper()
	if s := stealSince(h.cpu); s > hostLimit {
		tb.Skipf("%s while the hypervisor took %.1f %% of the CPUs: the host's figure, not emu's", what, 100*s)
	}
	now := Mono()
	h.stop(tb)
	late, longest := h.w.late(h.start, now)
	if float64(late) > hostLimit*float64(now-h.start) || longest >= hostStall {
		tb.Skipf("%s while the whole machine stalled: a real-time witness process was kept from running %v of %v, %v at once: the host's figure, not emu's",
			what, late.Round(time.Millisecond), (now - h.start).Round(time.Millisecond), longest.Round(time.Millisecond))
	}
}

// SkipIfHostTookDuring skips tb, saying so, when the witness was kept from
// running for at least half of [from, to] (on Mono's clock), the interval
// in which the figure (what) went wrong. A stall of emu's own making
// leaves the witness on time, and the test fails as it should.
func (h *HostWatch) SkipIfHostTookDuring(tb testing.TB, from, to time.Duration, what string) {
	tb.Helper()
	h.stop(tb)
	if late, _ := h.w.late(from, to); to > from && late >= (to-from)/2 {
		tb.Skipf("%s while the whole machine stalled: a real-time witness process was kept from running %v of the same %v", what, late.Round(time.Millisecond), (to - from).Round(time.Millisecond))
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
