package runstate

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// deadRun writes the state file of a run whose owner is gone (a process
// that has exited) with the given scratch directory, and removes it at
// the end of the test if Clean did not.
func deadRun(t *testing.T, scratch func(id string) string) RunState {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: writes a state file in " + StateDir)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	s := RunState{ID: "t" + NewRunID()[1:], PID: cmd.Process.Pid, PIDTime: 1, Command: "run"}
	s.Scratch = scratch(s.ID)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(StateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(statePath(s.ID), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { RemoveState(s.ID) })
	if s.Alive() {
		t.Fatalf("run %s with exited pid %d counts as alive", s.ID, s.PID)
	}
	return s
}

// TestCleanRemovesScratch: the scratch directory a killed run recorded
// (ngtcp2's downloads) goes with its state file; so does the one a state
// file cut short no longer names.
func TestCleanRemovesScratch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		scratch func(id string) string
	}{
		{"recorded", ScratchDir},
		{"state cut short", func(string) string { return "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := deadRun(t, tc.scratch)
			dir := ScratchDir(s.ID)
			if err := os.MkdirAll(filepath.Join(dir, "emu-ngtcp2-dl-1"), 0o700); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			if err := os.WriteFile(filepath.Join(dir, "emu-ngtcp2-dl-1", "1000000"), make([]byte, 1000), 0o600); err != nil {
				t.Fatal(err)
			}
			rep, err := Clean(false)
			if err != nil {
				t.Logf("clean: %v", err) // other leftovers of the machine
			}
			if !slices.Contains(rep.Scratch, dir) || !slices.Contains(rep.Runs, s.ID) {
				t.Errorf("clean reported scratch %v, runs %v; want %s and %s among them", rep.Scratch, rep.Runs, dir, s.ID)
			}
			if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("scratch directory %s after clean: %v", dir, err)
			}
			if _, err := os.Stat(statePath(s.ID)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("state file after clean: %v", err)
			}
		})
	}
}

// TestCleanLeavesOthersScratch: a state file that names a directory other
// than the run's own, or a link in the scratch directory's place, makes
// clean remove nothing there and keep the state file.
func TestCleanLeavesOthersScratch(t *testing.T) {
	other := t.TempDir()
	keep := filepath.Join(other, "keep")
	if err := os.WriteFile(keep, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		setup func(s RunState) RunState
	}{
		{"another directory", func(s RunState) RunState {
			s.Scratch = other
			return s
		}},
		{"a link", func(s RunState) RunState {
			if err := os.Symlink(other, ScratchDir(s.ID)); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Remove(ScratchDir(s.ID)) })
			return s
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.setup(deadRun(t, ScratchDir))
			b, _ := json.Marshal(s)
			if err := os.WriteFile(statePath(s.ID), b, 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Clean(false)
			if err == nil || slices.Contains(rep.Runs, s.ID) {
				t.Errorf("clean: %v, runs %v; want an error and run %s kept", err, rep.Runs, s.ID)
			}
			if _, err := os.Stat(keep); err != nil {
				t.Errorf("clean removed what the state file pointed to: %v", err)
			}
			if _, err := os.Stat(statePath(s.ID)); err != nil {
				t.Errorf("state file of a run clean left alone: %v", err)
			}
		})
	}
}
