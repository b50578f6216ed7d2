// Package nsthread runs a function on an OS thread inside a network
// namespace, which is how sockets, NFQUEUE binds, /proc/sys/net and
// netns.New take their namespace: from the calling thread, not the process.
//
// The function runs on a fresh goroutine locked to its thread. Afterwards
// the thread moves back to the namespace it started in before it is
// unlocked; if it cannot, the goroutine exits still locked and the runtime
// destroys the thread rather than hand it to other goroutines inside a
// foreign namespace. This is the one copy of that sequence in emu (topo,
// emu/capture, emu/internal/nfq, emu/internal/mptcp and the test helpers
// use it).
//
// It switches namespaces and nothing else: it creates none, names none and
// keeps no state.
package nsthread
