package sweep

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// TestSweepDirBelongsToInvoker: run as root through sudo (SUDO_UID and
// SUDO_GID set), a sweep leaves nothing behind that the user who asked
// for it does not own, so emu analyze and a resumed sweep work without
// root. Each run directory is made as emu.Run makes it (RunDir.Create).
func TestSweepDirBelongsToInvoker(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (go test -exec scripts/asroot): chown to another user")
	}
	const nobody = 65534
	t.Setenv("SUDO_UID", fmt.Sprint(nobody))
	t.Setenv("SUDO_GID", fmt.Sprint(nobody))
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2})
	top := t.TempDir()
	// The writer creates as the user behind sudo: nobody may write in top.
	if err := errors.Join(os.Chmod(filepath.Dir(top), 0o755), os.Chmod(top, 0o777)); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "results", "sweep")
	if _, err := Prepare(dir, p, false); err != nil {
		t.Fatal(err)
	}
	fake := &sweeptest.Runner{}
	run := func(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
		if err := results.RunDir(out).Create(); err != nil {
			return nil, err
		}
		return fake.Run(ctx, cfg, out)
	}
	if _, err := Execute(context.Background(), dir, p, Options{Runner: run}); err != nil {
		t.Fatal(err)
	}
	if _, err := Finish(dir, AggregateOptions{}); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := filepath.WalkDir(filepath.Dir(dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != nobody || st.Gid != nobody {
			t.Errorf("%s: owner %d:%d, want %d:%d", path, st.Uid, st.Gid, nobody, nobody)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// results/, the sweep, runs/, 4 runs × (directory, 4 subdirectories,
	// summary.json), plan.json, sweep.csv, runs.csv, report.html, figures/
	// and its 4 files.
	if n != 3+4*6+4+5 {
		t.Errorf("walked %d entries, want %d", n, 3+4*6+4+5)
	}
}
