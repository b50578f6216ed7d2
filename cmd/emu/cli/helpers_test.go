package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/sweep"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// usageCase is one bad command line and what its error must name.
type usageCase struct {
	args []string
	want string
}

// checkUsageErrors runs the command (cmd names it in failures, as
// "emu sweep") once for each case, with --out in a fresh directory: each
// must exit 2 with stderr naming the case's want, and none may start a
// run or create the output directory.
func checkUsageErrors(t *testing.T, cmd string, run func(context.Context, sweep.Runner, ...string) (int, string, string), cases []usageCase) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	f := newFakeRun("")
	for _, tc := range cases {
		code, _, errs := run(context.Background(), f.Run, append(tc.args, "--out", dir)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s %v: exit %d, stderr %q; want 2 and %q", cmd, tc.args, code, errs, tc.want)
		}
	}
	checkNothingRan(t, f, dir, "bad usage")
}

// checkNothingRan fails if what (bad usage, a dry run) started a run on
// f or created the output directory dir.
func checkNothingRan(t *testing.T, f *sweeptest.Runner, dir, what string) {
	t.Helper()
	if n := len(f.Calls()); n != 0 {
		t.Errorf("%s started %d runs", what, n)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s created the output directory", what)
	}
}
