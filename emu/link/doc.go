// Package link emulates one direction of a radio link between the
// gateways, in the order a packet meets it: the rate limiter where the
// packet leaves a gateway (an HTB class with a bfifo leaf bounding the
// queue, its rate changed in place), the trace player's loop that drives
// that rate in time, and the NFQUEUE delay line where the packet arrives at
// the other gateway (package delayline), with a loop of its own that plays
// the direction's delay and loss traces on the same epoch.
//
// Sampler reads the rate limiters of a run's directions every 10 ms, from
// one real-time thread sleeping to absolute deadlines, into the
// linkstats.Sample series the run's queueing delay, throughput and
// saturated-rate figures come from; a reading is one qdisc dump of a
// gateway's namespace over a netlink socket of its own (qdiscdump.go).
//
// Rates are IP-layer rates: the limiter counts Ethernet frames and its
// class rate is scaled so that full-size packets get exactly the configured
// rate. The package does not build namespaces, install queue rules or
// decide queue numbers (package emu does); the trace logic itself is pure
// and lives in package replay.
package link
