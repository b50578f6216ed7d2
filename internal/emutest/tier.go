package emutest

import (
	"os"
	"testing"
)

// The tests come in two tiers (docs/testing.md).
//
// Tier 1, correctness, is the README's test command: real namespaces,
// packets, qlogs and pages, asserting only what no load can move (exact
// counts, order, formats, bounds several times from the expected value).
// A red there is a bug; nothing in it is rerun.
//
// Tier 2, fidelity, holds every test that asserts a measured rate, delay,
// lateness, ratio, correlation or CPU share against a tight figure. Such a
// test is named TestFidelity… and begins with Fidelity, which skips it
// unless FidelityEnv asks for the tier; CI runs the tier on its own and
// reruns a failed test in a fresh process (gotestsum), reporting each
// rerun. internal/layout keeps the rule: Fidelity is called by
// TestFidelity… functions and benchmarks only, and every TestFidelity…
// calls it, so a fidelity figure can neither slip into tier 1 nor drop out
// of tier 2 unseen. The longest measurements, TestFidelityLong…, call
// FidelityLong instead and run by hand.

// FidelityEnv names the environment variable that runs tier 2: 1 runs
// the tier (scripts/fidelity), long runs it and the long measurements
// (scripts/fidelity-long), which take minutes each and are run by hand,
// their figures going into commits and docs.
const FidelityEnv = "EMU_FIDELITY"

// FidelityTier begins the reason a fidelity test gives when it skips
// outside its tier: .ci/testreport.go counts these apart from real skips.
const FidelityTier = "fidelity tier: "

// Fidelity marks a tier-2 test. Outside the tier it skips, saying so. In
// it, the test skips under the race detector (SkipUnderRace), then holds
// the machine-wide measurement lock (Exclusive) and returns a watch of the
// host from then on: a figure missed while the host did other work is
// reported through the watch, which skips naming the evidence where it
// would fail. Witness adds a real-time witness of the whole machine.
// Benchmarks may call it too; they run only when asked for (-bench).
func Fidelity(tb testing.TB) *HostWatch {
	tb.Helper()
	if _, bench := tb.(*testing.B); !bench && os.Getenv(FidelityEnv) != "1" && os.Getenv(FidelityEnv) != "long" {
		tb.Skipf("%sasserts a measured figure; %s=1 runs it (README.md, docs/testing.md)", FidelityTier, FidelityEnv)
	}
	SkipUnderRace(tb)
	Exclusive(tb)
	return watch()
}

// FidelityLong marks a long measurement, a test named TestFidelityLong…:
// Fidelity, run only when FidelityEnv is long.
func FidelityLong(tb testing.TB) *HostWatch {
	tb.Helper()
	if os.Getenv(FidelityEnv) != "long" {
		tb.Skipf("%sa long measurement; %s=long runs it (scripts/fidelity-long)", FidelityTier, FidelityEnv)
	}
	return Fidelity(tb)
}
