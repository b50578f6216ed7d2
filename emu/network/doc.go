// Package network builds and runs the emulated network of a configuration:
// its topology (package topo), the two links with their rate limiters,
// delay lines and trace players, the PDCP proxies, per-flow steering,
// duplication and the MPTCP path manager. A run (package emu) starts one,
// runs its flows over it and reads it through a few methods; `emu up`
// keeps one until Ctrl-C. It knows nothing of flows' processes or results
// directories.
//
// Start's stages, in order: compile the configuration into the
// components' settings (compile.go), load the traces, claim the run's
// state file, build the namespaces, shape each link direction
// (emulation_linux.go), open the delay lines and PDCP proxies with their
// queue rules (datapath_linux.go, steer_linux.go, dup_linux.go), set up
// MPTCP (mptcp_linux.go), then start the trace players on one epoch.
//
// A downlink packet of a Dual Connectivity client meets, in order:
//
//  1. the server's veth into gws;
//  2. the PDCP transmit proxy in gws (package dcproxy: NFQUEUE, prerouting),
//     which numbers it and marks the link it takes;
//  3. the link's rate limiter on gws's egress (package link: HTB with a
//     bfifo queue), its rate driven by the trace player (package replay);
//  4. the veth of link1 or link2 to gwc;
//  5. the link's delay line in gwc (package delayline: NFQUEUE, prerouting,
//     first), when the direction delays, jitters or drops;
//  6. the PDCP receive proxy in gwc (prerouting, after the delay line),
//     which gives verdicts in COUNT order (t-Reordering);
//  7. the client's veth. The uplink mirrors this, through the proxies only
//     with dc.uplink=split.
//
// Threads: every packet loop (each delay line, each proxy half) runs on an
// OS thread of its own, locked, SCHED_FIFO with 1 ns timer slack; each
// trace player sleeps in nanosleep on its own goroutine.
//
// The package must not touch the host's root namespace networking: every
// kernel object it makes lives inside the run's namespaces, so deleting
// them undoes the run, and the run's state file (package runstate) is
// written before its first namespace so emu clean can always find it. It
// holds no package-level mutable state, so several networks can share a
// process.
package network
