package nsthread

import (
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// Run runs f on a fresh goroutine locked to its OS thread and returns f's
// error. f may move the thread into other network namespaces (setns,
// unshare): the thread is moved back to the one it started in afterwards,
// or, if that fails, never reused.
func Run(f func() error) error {
	ch := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			ch <- fmt.Errorf("open current netns: %w", err)
			return
		}
		defer unix.Close(orig)
		ferr := f()
		if err := unix.Setns(orig, unix.CLONE_NEWNET); err != nil {
			ch <- errors.Join(ferr, fmt.Errorf("return to the original netns: %w", err))
			return // the thread stays locked and dies with the goroutine
		}
		runtime.UnlockOSThread()
		ch <- ferr
	}()
	return <-ch
}

// Do runs f on a thread inside the network namespace open as fd (a file
// descriptor of /proc/PID/ns/net or /run/netns/NAME), as Run does.
func Do(fd int, f func() error) error {
	return Run(func() error {
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("enter netns fd %d: %w", fd, err)
		}
		return f()
	})
}
