package emutest

import (
	"runtime"
	"testing"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// NetNS is an anonymous network namespace private to one test, with a
// netlink handle bound to it. It is deleted when the test ends.
type NetNS struct {
	NS     netns.NsHandle
	Handle *netlink.Handle
}

// NewNetNS creates a fresh namespace without moving the calling goroutine
// into it, brings its loopback up and registers its removal with t.Cleanup.
func NewNetNS(tb testing.TB) *NetNS {
	tb.Helper()
	RequireRoot(tb)
	ns, err := newNS()
	if err != nil {
		tb.Fatalf("emutest: new netns: %v", err)
	}
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		ns.Close()
		tb.Fatalf("emutest: netlink handle: %v", err)
	}
	n := &NetNS{NS: ns, Handle: h}
	tb.Cleanup(func() {
		h.Close()
		ns.Close()
	})
	lo, err := h.LinkByName("lo")
	if err != nil {
		tb.Fatalf("emutest: lo: %v", err)
	}
	if err := h.LinkSetUp(lo); err != nil {
		tb.Fatalf("emutest: lo up: %v", err)
	}
	return n
}

// newNS makes an unnamed namespace on a locked thread and returns a handle to
// it; the thread goes back to the original namespace before it is unlocked,
// and if that fails it stays locked so the runtime retires it.
func newNS() (netns.NsHandle, error) {
	type result struct {
		ns  netns.NsHandle
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			ch <- result{err: err}
			return
		}
		defer orig.Close()
		ns, err := netns.New()
		if err != nil {
			runtime.UnlockOSThread()
			ch <- result{err: err}
			return
		}
		if err := netns.Set(orig); err != nil {
			ch <- result{ns: ns, err: err} // thread stays locked and dies with the goroutine
			return
		}
		runtime.UnlockOSThread()
		ch <- result{ns: ns}
	}()
	r := <-ch
	return r.ns, r.err
}

// Do runs f on a thread inside the namespace and returns its error.
func (n *NetNS) Do(f func() error) error {
	ch := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			ch <- err
			return
		}
		defer orig.Close()
		if err := netns.Set(n.NS); err != nil {
			runtime.UnlockOSThread()
			ch <- err
			return
		}
		ferr := f()
		if err := netns.Set(orig); err != nil {
			ch <- err // leave the thread locked: the runtime discards it
			return
		}
		runtime.UnlockOSThread()
		ch <- ferr
	}()
	return <-ch
}
