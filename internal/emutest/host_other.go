//go:build !linux

package emutest

import (
	"strings"
	"testing"
)

// A HostWatch, where /proc does not tell what the rest of the machine did,
// has no evidence: every missed figure fails. emu's timing tests run on
// Linux only; the type lets the portable ones compile.
type HostWatch struct{}

func watch() *HostWatch { return &HostWatch{} }

// SkipIfHostTook never skips: there is no evidence to skip on.
func (h *HostWatch) SkipIfHostTook(tb testing.TB, what string) {}

// Errorf fails the test with the missed figure.
func (h *HostWatch) Errorf(tb testing.TB, format string, args ...any) {
	tb.Helper()
	tb.Errorf(format, args...)
}

// Fatalf fails the test with the missed figure and ends it.
func (h *HostWatch) Fatalf(tb testing.TB, format string, args ...any) {
	tb.Helper()
	tb.Fatalf(format, args...)
}

// Check fails the test with each missed figure.
func (h *HostWatch) Check(tb testing.TB, missed []string) {
	tb.Helper()
	if len(missed) > 0 {
		tb.Error(strings.Join(missed, "; "))
	}
}

// Witness does nothing: there is no witness to start.
func (h *HostWatch) Witness(tb testing.TB) {}
