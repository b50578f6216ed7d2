package rtsched

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestSysmonRaisedWhileRealtime: the thread raised is the runtime's
// monitor (it sleeps in nanosleep or a futex and never runs Go code the
// test starts), it is real-time one priority above the threads while any
// is, and it is back as it was after the last leaves.
func TestSysmonRaisedWhileRealtime(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	if st := Snapshot(); st.Threads != 0 || st.Sysmon != 0 {
		t.Fatalf("before Enter: %+v", st)
	}
	done := make(chan error)
	entered := make(chan struct{})
	release := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		leave, err := Enter(7)
		if err != nil {
			done <- err
			return
		}
		close(entered)
		<-release
		done <- leave()
	}()
	select {
	case err := <-done:
		t.Fatal(err)
	case <-entered:
	}
	st := Snapshot()
	if st.Sysmon == 0 {
		close(release)
		<-done
		t.Fatalf("sysmon not raised while a thread is real-time: %+v", st)
	}
	attr, err := unix.SchedGetAttr(st.Sysmon, 0)
	if err != nil {
		t.Error(err)
	} else if attr.Policy != unix.SCHED_FIFO || attr.Priority != 8 {
		t.Errorf("sysmon (thread %d) policy %d priority %d, want SCHED_FIFO 8", st.Sysmon, attr.Policy, attr.Priority)
	}
	// sysmon sleeps between its looks (nanosleep, 35 on amd64; a futex
	// when the process idles); no other thread of this process sleeps in
	// nanosleep without a goroutine asking it to.
	sleeping := 0
	for range 50 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/syscall", st.Sysmon))
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b))
		if len(f) > 0 && (f[0] == fmt.Sprint(unix.SYS_NANOSLEEP) || f[0] == fmt.Sprint(unix.SYS_FUTEX)) {
			sleeping++
		}
		time.Sleep(time.Millisecond)
	}
	if sleeping < 40 {
		t.Errorf("thread %d slept in nanosleep or a futex in %d of 50 looks: not sysmon", st.Sysmon, sleeping)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st := Snapshot(); st.Sysmon != 0 {
		t.Errorf("sysmon still raised after the last thread left: %+v", st)
	}
	attr, err = unix.SchedGetAttr(st.Sysmon, 0)
	if err != nil {
		t.Fatal(err)
	}
	if attr.Policy != unix.SCHED_NORMAL {
		t.Errorf("sysmon policy %d after the last thread left, want SCHED_NORMAL", attr.Policy)
	}
}
