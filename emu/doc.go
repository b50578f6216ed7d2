// Package emu runs emulated networks: it shapes the links of a topology built
// by package topo (rate through a kernel qdisc, delay, jitter and loss through
// sch_netem or a userspace NFQUEUE delay line), replays bandwidth traces,
// runs the PDCP proxies and the QUIC and TCP endpoints, and owns the lifecycle
// of a run from its configuration to its results directory.
//
// Only this package and topo touch the kernel. Every kernel object a run
// makes lives inside the run's network namespaces, so deleting them undoes
// the run; the host's root namespace is never modified.
package emu
