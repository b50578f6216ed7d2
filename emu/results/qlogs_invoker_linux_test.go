package results

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQlogGzipAsInvoker: a sweep compresses each run's qlogs as root, in a
// run directory of the user's; a qlog that is a link the user left to a
// file only root may read is permission denied, and no .gz of that file
// appears for the user to read.
func TestQlogGzipAsInvoker(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (go test -exec scripts/asroot): plays root under sudo for another user")
	}
	t.Setenv("SUDO_UID", "4242")
	t.Setenv("SUDO_GID", "4243")
	top := t.TempDir()
	if err := errors.Join(os.Chmod(filepath.Dir(top), 0o755), os.Chmod(top, 0o755)); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(top, "shadow")
	if err := os.WriteFile(victim, []byte("root:secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(top, "run")
	qlog := filepath.Join(run, QlogDir)
	if err := os.MkdirAll(qlog, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{run, qlog} {
		if err := os.Chown(d, 4242, 4243); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(victim, filepath.Join(qlog, "evil.sqlog")); err != nil {
		t.Fatal(err)
	}
	_, _, err := QlogsGzip.Apply(run)
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("gzip of a qlog linked to root's file: %v; want permission denied", err)
	}
	ents, _ := os.ReadDir(qlog)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), gzSuffix) {
			t.Errorf("%s appeared beside the link", e.Name())
		}
	}
}
