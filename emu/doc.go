// Package emu runs emulated networks and experiments over them: it builds
// a configuration's topology (package topo), emulates its links, runs the
// PDCP proxies and the endpoints, and owns a run from its configuration to
// its results directory.
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
// trace player sleeps in nanosleep on its own goroutine; the run loop is one
// goroutine that starts the clients, samples the rate limiters and decides
// when the run is over; each endpoint is a process of its own (the emu
// binary re-executed as `emu endpoint`) inside its node's namespace, so a GC
// pause in one cannot stall another.
//
// The package must not touch the host's root namespace networking: every
// kernel object a run makes lives inside the run's namespaces, so deleting
// them undoes the run, and a run's state file (package runstate) is
// written before its first namespace so emu clean can always find it. It
// holds no package-level mutable state, so several runs can share a
// process. Configuration, result formats and analysis are not its job
// (packages config, results and analysis): it only fills them.
package emu
