// Package network builds and runs the emulated network of a configuration:
// its topology (package topo), the two links with their rate limiters,
// delay lines and trace players, the PDCP proxies (TUN and UDP in
// batches), per-flow steering, duplication, the split-TCP PEP (pep.enabled) and the MPTCP path manager. A run (package
// emu) starts one,
// runs its flows over it and reads it through a few methods; `emu up`
// keeps one until Ctrl-C. It knows nothing of flows' processes or results
// directories.
//
// Start's stages, in order: compile the configuration into the
// components' settings (compile.go), load the traces, claim the run's
// state file, build the namespaces, shape each link direction
// (emulation_linux.go), open the delay lines with their queue rules and
// the PDCP proxies with their TUNs, UDP sockets and routes
// (datapath_linux.go, batch_linux.go, steer_linux.go),
// start the PEP (pep_linux.go), set up MPTCP (mptcp_linux.go), then start
// the trace players on one epoch.
//
// A downlink packet of a Dual Connectivity client meets, in order:
//
//  1. the server's veth into gws;
//  2. with pep.enabled, a TCP segment of a single-link client's connection
//     goes to the PEP in gws instead (TPROXY), which splits the connection
//     and sends its own over the link;
//  3. gws's TUN, routed there, from which the PDCP transmit proxy
//     (emu/dcproxy) reads it in a batch, numbers it and sends the
//     PDU in UDP to gwc's address on the link the scheduler picked (the
//     other clients' packets cross the same way, unnumbered);
//  4. the link's rate limiter on gws's egress (package link: HTB with a
//     bfifo queue), its rate driven by the trace player (package replay);
//  5. the veth of link1 or link2 to gwc;
//  6. the link's delay line in gwc (package delayline: NFQUEUE, prerouting,
//     first), when the direction delays, jitters or drops;
//  7. the PDCP receive proxy in gwc, which reads the PDUs from its UDP
//     socket and writes the SDUs to its TUN in COUNT order (t-Reordering);
//  8. the client's veth. The uplink mirrors this, through the proxies only
//     with dc.uplink=split.
//
// Threads: each delay line runs on an OS thread of its own, locked,
// SCHED_FIFO (rtsched.PacketPriority) with 1 ns timer slack; the trace
// players (rate, and delay and loss) and the link sampler run on locked
// SCHED_FIFO threads one priority below them (rtsched.PlayerPriority,
// package link), so a delay line that wakes while a player applies a
// change runs first. The PDCP proxies' two loops each run at the players'
// priority while they carry little, and as goroutines when they carry
// much (gsofwd.RTLoop).
//
// The package must not touch the host's root namespace networking: every
// kernel object it makes lives inside the run's namespaces, so deleting
// them undoes the run, and the run's state file (package runstate) is
// written before its first namespace so emu clean can always find it. It
// holds no package-level mutable state, so several networks can share a
// process.
package network
