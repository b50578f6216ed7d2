package invoker

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// do runs f on a fresh goroutine locked to its OS thread, with that
// thread's filesystem identity switched to inv: fsuid, fsgid and inv's
// groups. Linux keeps credentials per thread, and the raw setfsuid,
// setfsgid and setgroups calls of x/sys/unix change only the calling
// thread's (syscall.Setgroups would change every thread's), so root's other
// goroutines are untouched; while the thread is locked the runtime starts
// no thread from it either. The identity is switched back after f; if that
// fails the goroutine ends still locked, and the runtime ends the thread
// rather than reuse it.
func (inv Invoker) do(f func() error) error {
	groups := inv.Groups()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		restored, err := inv.switchTo(groups, f)
		if restored {
			runtime.UnlockOSThread()
		}
		done <- err
	}()
	return <-done
}

// switchTo runs f as inv on the calling (locked) thread and switches back;
// restored is false when the thread may still have the user's identity.
func (inv Invoker) switchTo(groups []int, f func() error) (restored bool, err error) {
	oldGroups, err := unix.Getgroups()
	if err != nil {
		return true, fmt.Errorf("invoker: getgroups: %w", err)
	}
	if err := unix.Setgroups(groups); err != nil {
		return true, fmt.Errorf("invoker: setgroups %v: %w", groups, err)
	}
	oldGID, errG := setfsgid(inv.GID)
	oldUID, errU := setfsuid(inv.UID)
	if errG == nil && errU == nil {
		err = f()
	} else {
		err = fmt.Errorf("invoker: acting as uid %d gid %d: %w", inv.UID, inv.GID, firstErr(errU, errG))
	}
	if _, e := setfsuid(oldUID); e != nil {
		return false, firstErr(err, e)
	}
	if _, e := setfsgid(oldGID); e != nil {
		return false, firstErr(err, e)
	}
	if e := unix.Setgroups(oldGroups); e != nil {
		return false, firstErr(err, fmt.Errorf("invoker: restore groups: %w", e))
	}
	return true, err
}

// setfsuid sets the thread's fsuid and returns the one it had. The system
// call reports no error, only the previous value, so asking again (with
// -1, which changes nothing) is how a refusal shows.
func setfsuid(uid int) (prev int, err error) {
	prev, _ = unix.SetfsuidRetUid(uid)
	if now, _ := unix.SetfsuidRetUid(-1); now != uid {
		return prev, fmt.Errorf("setfsuid %d: fsuid is %d", uid, now)
	}
	return prev, nil
}

// setfsgid is setfsuid for the fsgid.
func setfsgid(gid int) (prev int, err error) {
	prev, _ = unix.SetfsgidRetGid(gid)
	if now, _ := unix.SetfsgidRetGid(-1); now != gid {
		return prev, fmt.Errorf("setfsgid %d: fsgid is %d", gid, now)
	}
	return prev, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
