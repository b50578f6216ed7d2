package invoker

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// testUID and testGID are the user behind sudo in these tests: ids no
// account has, so that no group of the user database adds a permission.
// rootGroup is a supplementary group of the root process that the user is
// not in (sudo gives root group 0 as one).
const testUID, testGID, rootGroup = 4242, 4243, 4244

// asSudo makes the test look like emu run by uid testUID through sudo, and
// returns a directory everybody may search, owned by root.
func asSudo(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the test switches a thread's filesystem identity to another user")
	}
	t.Setenv("SUDO_UID", "4242")
	t.Setenv("SUDO_GID", "4243")
	old, err := syscall.Getgroups()
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setgroups([]int{0, rootGroup}); err != nil { // every thread's
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setgroups(old) })
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} { // the test's, then this call's
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeFile(t *testing.T, path, content string, mode fs.FileMode, uid, gid int) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	if err := os.Chown(path, uid, gid); err != nil {
		t.Fatal(err)
	}
}

// TestOpenAsInvoker checks that a root process under sudo opens the files
// a user names with the user's permissions: a file only root may read is
// "permission denied", also through a group of root's, and nothing of it is
// read; files the user may read are read.
func TestOpenAsInvoker(t *testing.T) {
	dir := asSudo(t)
	secret := filepath.Join(dir, "shadow")
	writeFile(t, secret, "root:secret\n", 0o600, 0, 0)
	groupRoot := filepath.Join(dir, "group-root")
	writeFile(t, groupRoot, "root group\n", 0o640, 0, rootGroup)
	mine := filepath.Join(dir, "mine.csv")
	writeFile(t, mine, "1MB\n", 0o600, testUID, testGID)
	ours := filepath.Join(dir, "ours.csv")
	writeFile(t, ours, "2MB\n", 0o640, 0, testGID)
	hidden := filepath.Join(dir, "private")
	if err := os.Mkdir(hidden, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(hidden, "trace.csv"), "0,1\n", 0o644, 0, 0)

	for _, name := range []string{secret, groupRoot, filepath.Join(hidden, "trace.csv")} {
		b, err := ReadFile(name)
		if !errors.Is(err, fs.ErrPermission) || len(b) != 0 {
			t.Errorf("ReadFile(%s) = %q, %v; want permission denied and nothing read", name, b, err)
		} else if !strings.Contains(err.Error(), name) {
			t.Errorf("ReadFile(%s): %v does not name the file", name, err)
		}
	}
	if _, err := Stat(filepath.Join(hidden, "trace.csv")); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Stat in a directory the user cannot search: %v; want permission denied", err)
	}
	for name, want := range map[string]string{mine: "1MB\n", ours: "2MB\n"} {
		if b, err := ReadFile(name); err != nil || string(b) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", name, b, err, want)
		}
	}
	// The rest of the process is still root.
	if b, err := os.ReadFile(secret); err != nil || string(b) != "root:secret\n" {
		t.Errorf("root's own os.ReadFile after: %q, %v", b, err)
	}
	// Without sudo's variables the user is root itself.
	t.Setenv("SUDO_UID", "")
	if b, err := ReadFile(secret); err != nil || string(b) != "root:secret\n" {
		t.Errorf("ReadFile as root without sudo: %q, %v", b, err)
	}
}

// TestMkdirAllAsInvoker checks --out: created as the user (so the user's),
// refused where the user may not write, even when the directory exists.
func TestMkdirAllAsInvoker(t *testing.T) {
	dir := asSudo(t)
	users := filepath.Join(dir, "home")
	if err := os.Mkdir(users, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(users, testUID, testGID); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(users, "results", "run1")
	if err := MkdirAll(out, 0o777); err != nil {
		t.Fatalf("MkdirAll in the user's directory: %v", err)
	}
	for _, d := range []string{out, filepath.Dir(out)} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != testUID || st.Gid != testGID {
			t.Errorf("%s is owned by %d:%d; want %d:%d", d, st.Uid, st.Gid, testUID, testGID)
		}
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("the write check left %v", ents)
	}
	for _, d := range []string{filepath.Join(dir, "new"), dir} { // to create, and existing
		err := MkdirAll(d, 0o777)
		if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), dir) {
			t.Errorf("MkdirAll(%s) in root's directory: %v; want permission denied naming it", d, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused MkdirAll created the directory (%v)", err)
	}
	f, err := OpenFile(filepath.Join(out, "x.csv"), os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	f.Close()
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != testUID {
		t.Errorf("a file OpenFile created is owned by uid %d; want %d", st.Uid, testUID)
	}
}

// TestCreateThroughLink: a file root writes into a directory of the user's
// (a run directory) is created as the user, so a link the user left in its
// place to a file of root's is permission denied and the file is intact.
func TestCreateThroughLink(t *testing.T) {
	dir := asSudo(t)
	victim := filepath.Join(dir, "passwd")
	writeFile(t, victim, "root:x:0:0\n", 0o644, 0, 0)
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(run, testUID, testGID); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(run, "server.log")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if f, err := Create(link); !errors.Is(err, fs.ErrPermission) {
		f.Close()
		t.Errorf("Create through a link to root's file: %v; want permission denied", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "root:x:0:0\n" {
		t.Errorf("root's file after: %q", b)
	}
}

// TestOtherThreadsStayRoot checks that while one thread acts as the user,
// the process's other goroutines keep root's permissions.
func TestOtherThreadsStayRoot(t *testing.T) {
	dir := asSudo(t)
	secret := filepath.Join(dir, "shadow")
	writeFile(t, secret, "root:secret\n", 0o600, 0, 0)
	inside, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- Invoker{UID: testUID, GID: testGID}.do(func() error {
			close(inside)
			<-release // hold the user's identity on this thread meanwhile
			_, err := os.ReadFile(secret)
			return err
		})
	}()
	<-inside
	for i := 0; i < 100; i++ {
		if _, err := os.ReadFile(secret); err != nil {
			t.Fatalf("root's read while another thread acts as the user: %v", err)
		}
	}
	close(release)
	if err := <-done; !errors.Is(err, fs.ErrPermission) {
		t.Errorf("the user's read: %v; want permission denied", err)
	}
}

// TestHandOver: what root wrote into a directory of the user's becomes the
// user's, but a link in it hands over only itself, a second name of a
// root file is left alone, and a directory that is not the user's (a link
// in its path could make it any) is refused.
func TestHandOver(t *testing.T) {
	dir := asSudo(t)
	inv := Invoker{UID: testUID, GID: testGID}
	victim := filepath.Join(dir, "passwd")
	writeFile(t, victim, "root:x:0:0\n", 0o644, 0, 0)
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(filepath.Join(run, "qlog", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(run, "qlog", "deep", "a.sqlog"), "{}", 0o644, 0, 0)
	if err := os.Symlink(victim, filepath.Join(run, "qlog", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(victim, filepath.Join(run, "hard")); err != nil {
		t.Fatal(err)
	}
	if err := inv.HandOver(run); err == nil {
		t.Error("HandOver of a directory of root's: no error")
	}
	if err := os.Chown(run, testUID, testGID); err != nil {
		t.Fatal(err)
	}
	err := inv.HandOver(run)
	if err == nil || !strings.Contains(err.Error(), "hard") {
		t.Errorf("HandOver: %v; want the hard link reported", err)
	}
	owner := func(p string) uint32 {
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st.Uid
	}
	for _, p := range []string{"qlog", "qlog/deep", "qlog/deep/a.sqlog", "qlog/link"} {
		if u := owner(filepath.Join(run, p)); u != testUID {
			t.Errorf("%s is uid %d's; want %d", p, u, testUID)
		}
	}
	if u := owner(victim); u != 0 {
		t.Errorf("root's file, linked and hard-linked from the tree, is uid %d's now", u)
	}
}
