package emutest

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// CPUClock is the machine's CPU time as /proc/stat's first line counts
// it: every state's ticks, and the hypervisor's steal among them.
type CPUClock struct{ total, steal uint64 }

// ReadCPU reads the CPU clock; the zero clock when /proc/stat does not
// read (StealSince is then 0).
func ReadCPU() CPUClock {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPUClock{}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return CPUClock{}
	}
	var c CPUClock
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

// StealSince is the share of the CPUs' time the hypervisor took since c.
func StealSince(c CPUClock) float64 {
	now := ReadCPU()
	if c.total == 0 || now.total <= c.total {
		return 0
	}
	return float64(now.steal-c.steal) / float64(now.total-c.total)
}

// SkipIfStolen skips tb, saying so, when the hypervisor took more than
// 2 % of the CPUs since c (the fidelity verdict's limit): a timing figure
// missed then is the host's, not emu's. Call it where the figure failed.
func SkipIfStolen(tb testing.TB, c CPUClock, what string) {
	tb.Helper()
	if s := StealSince(c); s > 0.02 {
		tb.Skipf("%s while the hypervisor took %.1f %% of the CPUs: the host's figure, not emu's", what, 100*s)
	}
}
