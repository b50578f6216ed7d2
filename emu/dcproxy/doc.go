// Package dcproxy runs the PDCP proxies of Dual Connectivity: the pure
// package pdcp on NFQUEUEs in the gateway namespaces, one loop each on a
// thread of its own (SCHED_FIFO, 1 ns timer slack).
//
// Transmit (network side of the downlink, device side of a split uplink):
// every packet of a DC client's traffic is queued with a full copy; the
// proxy numbers it, inserts the PDCP shim and gives an accept verdict with
// the rewritten packet and a mark; policy routing turns the mark into the
// link. A verdict cannot duplicate: a PDU for both links (the duplicate
// scheduler's) gets topo.MarkBoth, routed over link1, and a kernel rule
// after the proxy's hook (nftables dup on that mark, installed by package
// emu) sends a copy to link2. The proxy once sent that
// copy itself, with a blocking send on a raw socket; the copies waiting in
// link2's queue were charged to the socket's send buffer, the send blocked
// once it was full, and every DC packet waited in the NFQUEUE behind it
// (verdict latency p99 0.54 s in a fairness run; docs/design.md).
//
// The transmit loop measures each packet's verdict latency from the
// kernel's receive timestamp (VerdictLatency); both loops sample their
// queue's kernel counters (QueueStats).
//
// Receive: PDUs from both links are queued (after the delay lines, at a
// later priority of the same hook); the proxy strips the shim and gives the
// verdicts in COUNT order. Holding a packet is not giving its verdict yet,
// so the packet waits in the kernel; only its decapsulated bytes are copied
// to a slot here, because the verdict must carry them.
//
// Foreign packets (not IP, too short, no shim on the receive side) follow
// package pdcp's rule: the transmit proxy passes them unchanged on link1;
// the receive proxy only sees protocol 253 (its rule says so) and drops a
// malformed PDU.
//
// Per-flow steering (Steer, steer_linux.go): a flow with a scheduler of
// its own is its own PDCP entity on both sides, found by its server port,
// with its own COUNTs, receive window and scheduler; every other packet is
// the DC client's entity. Schedulers that estimate the links' backlog
// (pdcp.Observer) are told of every entity's PDUs.
//
// Each loop owns its queue, its pdcp state and its counters; it publishes a
// copy of the counters under a mutex every 50 ms and when it stops, which
// is all Snapshot reads. The package does not choose queue numbers, install
// queue rules or decide which traffic is DC traffic: package emu does.
package dcproxy
