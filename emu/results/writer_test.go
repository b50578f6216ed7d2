package results

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// withUmask runs the test under umask u, restored afterwards.
func withUmask(t *testing.T, u int) {
	old := syscall.Umask(u)
	t.Cleanup(func() { syscall.Umask(old) })
}

func owner(t *testing.T, path string) (uid, gid uint32) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return st.Uid, st.Gid
}

func TestWriteFileAtomicAndModes(t *testing.T) {
	for _, c := range []struct {
		umask    int
		file, dr fs.FileMode
	}{{0o022, 0o644, 0o755}, {0o002, 0o664, 0o775}, {0o077, 0o600, 0o700}} {
		withUmask(t, c.umask)
		dir := filepath.Join(t.TempDir(), "a", "b")
		if err := MkdirAll(dir); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "f.json")
		if err := WriteJSON(path, map[string]int{"x": 1}); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(path, []byte("new\n")); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != "new\n" {
			t.Errorf("content %q", b)
		}
		for p, want := range map[string]fs.FileMode{path: c.file, dir: c.dr | fs.ModeDir, filepath.Dir(dir): c.dr | fs.ModeDir} {
			if fi, err := os.Stat(p); err != nil || fi.Mode() != want {
				t.Errorf("umask %03o: %s: mode %v (%v), want %v", c.umask, p, fi.Mode(), err, want)
			}
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("temporary files left: %v", ents)
		}
	}
}

func TestCreateCommitDiscard(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	if err := WriteFile(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("before Commit the path holds %q, want the old content", b)
	}
	f.Discard()
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("after Discard the path holds %q", b)
	}
	f, err = Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("whole"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "whole" {
		t.Fatalf("after Commit the path holds %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestMkdirAllOverFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := WriteFile(path, nil); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(path); !errors.Is(err, fs.ErrExist) {
		t.Errorf("MkdirAll over a file: %v, want ErrExist", err)
	}
	if err := MkdirAll(filepath.Join(path, "sub")); err == nil {
		t.Error("MkdirAll under a file succeeded")
	}
}

// TestWriterHandsOverToInvoker runs as root with SUDO_UID and SUDO_GID
// naming nobody, as emu does under sudo: every file and directory the
// writer creates is nobody's; directories that existed before are not
// touched.
func TestWriterHandsOverToInvoker(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (go test -exec scripts/asroot): chown to another user")
	}
	const nobody = 65534
	t.Setenv("SUDO_UID", "65534")
	t.Setenv("SUDO_GID", "65534")
	withUmask(t, 0o022)
	top := t.TempDir()
	// The writer creates as the user behind sudo: nobody may write in top.
	if err := errors.Join(os.Chmod(filepath.Dir(top), 0o755), os.Chmod(top, 0o777)); err != nil {
		t.Fatal(err)
	}
	sweep := SweepDir(filepath.Join(top, "results", "sweep"))
	if err := sweep.Create(); err != nil {
		t.Fatal(err)
	}
	if err := sweep.WritePlan(&Plan{Version: PlanVersion}); err != nil {
		t.Fatal(err)
	}
	run := sweep.Run("p01-r1")
	if err := run.Create(); err != nil {
		t.Fatal(err)
	}
	if err := run.WriteSummary(&Summary{Run: "p01-r1"}); err != nil {
		t.Fatal(err)
	}
	if err := run.WriteTimeseries(&SeriesTable{Header: []string{"t_s"}, Rows: [][]float64{{0.1}}}); err != nil {
		t.Fatal(err)
	}
	if err := run.WriteCounters(&Counters{}); err != nil {
		t.Fatal(err)
	}
	pcap, err := CreateStream(run.File(PcapFile("cli", "eth0")))
	if err == nil {
		t.Fatal("CreateStream made pcap/ itself") // its directory is the caller's to make
	}
	if err := MkdirAll(run.File(PcapDir)); err != nil {
		t.Fatal(err)
	}
	if pcap, err = CreateStream(run.File(PcapFile("cli", "eth0"))); err != nil {
		t.Fatal(err)
	}
	pcap.Close()
	// What another process (an endpoint, as root) wrote into the run
	// directory is handed over at the end.
	if err := os.WriteFile(run.File(RecvLogFile("dc")), []byte("t_s,bytes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := HandOver(string(run)); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(filepath.Join(top, "results"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n++
		if uid, gid := owner(t, path); uid != nobody || gid != nobody {
			t.Errorf("%s: owner %d:%d, want %d:%d", strings.TrimPrefix(path, top), uid, gid, nobody, nobody)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 15 {
		t.Errorf("walked %d entries, want 15 (results/, sweep/, runs/, plan.json, p01-r1/ with flows/ qlog/ logs/ tls/ pcap/, 3 files, a pcap and a flow log)", n)
	}
	if uid, _ := owner(t, top); uid != 0 {
		t.Errorf("%s existed before, yet is now owned by %d", top, uid)
	}
}

// TestWriterLeavesOwnerWithoutSudo: without SUDO_UID the files are the
// process's own, whoever runs it.
func TestWriterLeavesOwnerWithoutSudo(t *testing.T) {
	t.Setenv("SUDO_UID", "")
	t.Setenv("SUDO_GID", "")
	dir := filepath.Join(t.TempDir(), "run")
	if err := RunDir(dir).WriteSummary(&Summary{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, RunDir(dir).File(SummaryFile)} {
		if uid, _ := owner(t, p); int(uid) != os.Geteuid() {
			t.Errorf("%s: owner %d, want %d", p, uid, os.Geteuid())
		}
	}
}
