package nsthread_test

import (
	"os"
	"runtime"
	"testing"

	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/internal/nsthread"
)

// inode is the namespace inode of the calling thread.
func inode(t *testing.T) uint64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat("/proc/thread-self/ns/net", &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// TestDoEntersAndReturns: f runs in the namespace it is given, and no
// thread stays there afterwards (every thread of the process is back in
// the original namespace, read from /proc/self/task).
func TestDoEntersAndReturns(t *testing.T) {
	ns := emutest.NewNetNS(t)
	var want unix.Stat_t
	if err := unix.Fstat(int(ns.NS), &want); err != nil {
		t.Fatal(err)
	}
	runtime.LockOSThread()
	host := inode(t)
	runtime.UnlockOSThread()
	for range 20 {
		var in uint64
		if err := nsthread.Do(int(ns.NS), func() error { in = inode(t); return nil }); err != nil {
			t.Fatal(err)
		}
		if in != want.Ino {
			t.Fatalf("f ran in netns inode %d, want %d", in, want.Ino)
		}
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		var st unix.Stat_t
		if err := unix.Stat("/proc/self/task/"+task.Name()+"/ns/net", &st); err != nil {
			continue // the thread has exited
		}
		if st.Ino != host {
			t.Errorf("thread %s left in netns inode %d (host %d)", task.Name(), st.Ino, host)
		}
	}
}

// TestRunMovesBack: a thread f moves into a new namespace (as netns.New
// does) goes back before another goroutine can run on it.
func TestRunMovesBack(t *testing.T) {
	emutest.RequireRoot(t)
	runtime.LockOSThread()
	host := inode(t)
	runtime.UnlockOSThread()
	var h netns.NsHandle
	err := nsthread.Run(func() error {
		var err error
		h, err = netns.New()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var created unix.Stat_t
	if err := unix.Fstat(int(h), &created); err != nil {
		t.Fatal(err)
	}
	if created.Ino == host {
		t.Fatal("netns.New gave the host's namespace")
	}
	if err := nsthread.Run(func() error {
		if got := inode(t); got != host {
			t.Errorf("a fresh Run starts in netns inode %d, want the host's %d", got, host)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestDoBadFd: entering something that is not a namespace fails, naming
// the descriptor, and f does not run.
func TestDoBadFd(t *testing.T) {
	emutest.RequireRoot(t)
	f, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ran := false
	err = nsthread.Do(int(f.Fd()), func() error { ran = true; return nil })
	if err == nil || ran {
		t.Fatalf("Do(/dev/null) = %v, f ran: %v", err, ran)
	}
	t.Log(err)
}
