package emu

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runstate"
	"github.com/dc-emu/emu/internal/emutest"
)

// TestRunBelongsToInvoker: a run made through sudo (SUDO_UID and SUDO_GID
// name an unprivileged user) leaves a run directory that is the user's,
// entry by entry — what emu wrote, what the endpoints wrote (receive
// logs, qlogs, TLS keys, their logs) and the packet captures — so the
// user can analyse, move and delete it without root.
func TestRunBelongsToInvoker(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	const nobody = 65534
	t.Setenv("SUDO_UID", "65534")
	t.Setenv("SUDO_GID", "65534")
	cfg := testConfig(t, "flow.size=1MB", "run.pcap=true")
	top := t.TempDir()
	// emu creates as the user behind sudo: nobody may write in top.
	if err := errors.Join(os.Chmod(filepath.Dir(top), 0o755), os.Chmod(top, 0o777)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(top, "results", "run")
	id := runstate.NewRunID()
	if _, err := Run(context.Background(), cfg, RunOptions{Out: out, Binary: emuBinary(t), ID: id}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(filepath.Dir(out), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, path)
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != nobody || st.Gid != nobody {
			t.Errorf("%s: owner %d:%d, want %d:%d", rel, st.Uid, st.Gid, nobody, nobody)
		}
		seen[strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{results.SummaryFile, results.CountersFile, results.TimeseriesFile, results.ConfigFile,
		results.FlowsDir, results.QlogDir, results.TLSDir, results.PcapDir, results.LogsDir} {
		if !seen[want] {
			t.Errorf("the run directory has no %s", want)
		}
	}
	noLeftovers(t, id)
}
