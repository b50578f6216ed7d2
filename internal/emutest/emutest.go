package emutest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// RequireRoot skips the test unless it runs as root, naming the reason.
func RequireRoot(tb testing.TB) {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("needs root (network namespaces, netlink, NFQUEUE); run the tests with the command in README.md")
	}
}

// RequireMPTCP skips a test that needs root and a kernel with Multipath
// TCP.
func RequireMPTCP(tb testing.TB) {
	tb.Helper()
	RequireRoot(tb)
	if _, err := os.Stat("/proc/sys/net/mptcp/enabled"); err != nil {
		tb.Skipf("kernel without MPTCP: %v", err)
	}
}

// RunID returns a short identifier unique to this test process and call,
// for names of namespaces and other kernel objects a test creates.
func RunID(tb testing.TB) string {
	tb.Helper()
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatalf("emutest: random id: %v", err)
	}
	return fmt.Sprintf("t%d%s", os.Getpid()%100000, hex.EncodeToString(b[:]))
}

// BusyHost begins every skip of a timing test whose machine was not
// quiet: .ci/run counts them, so a run that verified little shows it.
const BusyHost = "busy host: "

// lockPath is shared by every test binary on the machine: go test runs
// packages in parallel, and a rate or delay measured while another package
// pushes packets through the same two cores is a measurement of the load.
const lockPath = "/tmp/emu-test-exclusive.lock"

// Exclusive blocks until no other test on this machine holds the measurement
// lock, then holds it until the test ends. Tests that load the machine
// heavily call it, so that no fidelity test measures their load; every
// fidelity test holds it (Fidelity). It gives no watch of the host: a
// correctness test asserts nothing a busy host could move.
func Exclusive(tb testing.TB) {
	tb.Helper()
	f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		tb.Fatalf("emutest: open %s: %v", lockPath, err)
	}
	// The umask may have narrowed the mode; others' test runs need it too.
	f.Chmod(0o666)
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		tb.Fatalf("emutest: lock %s: %v", lockPath, err)
	}
	tb.Cleanup(func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	})
}

// SkipUnderRace skips a test whose assertions are rates or latencies: the
// race detector slows every goroutine five- to tenfold, so a proxy that
// keeps up with 15 Mbit/s in a normal build drops packets under -race,
// and the failure would be a measurement of the detector. The race step
// in CI still runs the functional tests of the same code.
func SkipUnderRace(tb testing.TB) {
	tb.Helper()
	if raceEnabled {
		tb.Skip("measures rates or latencies; the race detector's slowdown would be measured instead")
	}
}

// UnderRace says whether the test binary runs under the race detector: a
// test that checks a function and a rate in one run judges the rate only
// when it does not (SkipUnderRace says why).
func UnderRace() bool { return raceEnabled }

// WaitFor polls cond with a short backoff until it returns nil or timeout
// passes, and fails the test with cond's last error.
func WaitFor(tb testing.TB, timeout time.Duration, cond func() error) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("emutest: condition not met within %v: %v", timeout, err)
		}
		time.Sleep(wait)
		if wait < 50*time.Millisecond {
			wait *= 2
		}
	}
}

// TempDir is t.TempDir with a short path: unix socket paths and some kernel
// interfaces limit path length.
func TempDir(tb testing.TB) string {
	tb.Helper()
	d, err := os.MkdirTemp("", "emu")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(d) })
	return filepath.Clean(d)
}
