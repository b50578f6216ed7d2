// Package topo builds the emulated network of a run on one Linux host:
// network namespaces joined by veth pairs, with addresses, routes and policy
// rules, all made through netlink from Go (no ip or tc binaries).
//
// A Spec is plain data; Plan turns it into the ordered list of kernel
// operations (pure, golden-tested, printed by `emu up --dry-run`), and Build
// runs that plan and returns a *Net whose Close undoes it. Every object lives
// inside a namespace named emu-<run id>-<node>; veth pairs are created with
// both ends already in their namespaces, so the host's root namespace is never
// touched, and deleting a run's namespaces removes everything it made.
//
// Code that must run inside a namespace (sockets, NFQUEUE binds, endpoint
// processes) goes through Node.Do or StartIn, which lock the OS thread, enter
// the namespace, and restore the thread before unlocking it.
package topo
