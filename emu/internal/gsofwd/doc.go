// Package gsofwd forwards IP packets between a TUN device and UDP in
// batches, as wireguard-go does without its cryptography: the TUN is opened
// with IFF_VNET_HDR and TCP/UDP segmentation offloads, so one read brings a
// TCP super-packet of up to 64 KB that the library splits into wire
// segments; the segments leave over UDP with UDP_SEGMENT, a batch per
// send; the receiving side takes UDP_GRO batches and writes them back to
// its TUN coalesced into super-packets.
//
// Its stages are: Open (a TUN and a UDP socket inside one network
// namespace), Run (two loops: TUN to UDP, round robin over the peers one
// read batch at a time, and UDP to TUN). It carries no PDCP logic: it is
// the go/no-go measurement of issue #39 — how fast a user-space data path
// that moves batches, not packets, forwards kernel TCP on this machine —
// and the base a batched PDCP path would grow from.
package gsofwd
