// Package pdcp holds the PDCP algorithms of the Dual Connectivity proxies:
// the transmit side (COUNT assignment per entity, encapsulation, and the
// path schedulers that choose link 0, link 1 or both for every PDU) and the
// receive side (TS 38.323 reordering with t-Reordering, duplicate and
// out-of-window discard, SN wrap-around), see
// docs/pdcp-reordering.md.
//
// The package is pure: it touches no kernel, socket or timer, and never
// reads the clock. Every call that depends on time takes now (any monotonic
// time.Duration, e.g. since the run's start), and the receiver returns its
// next deadline (Receiver.Deadline) for the caller's one timer. A
// direction's entities, the DC client's and one per steered flow
// (SteerRule), are kept by TxEntities and RxEntities, so both data paths
// steer alike: emu/dcproxy runs them inside its NFQUEUE loops (holding a
// packet is not giving its verdict yet, so the receiver stores only the
// caller's Handle, never packet bytes) and emu/internal/gsofwd on batches
// (PutHeader/ParseHeader: a PDU carried whole in a UDP datagram). Nothing
// on the per-packet path allocates.
//
// # Wire format
//
// The network-side proxy inserts a shim between a packet's IP header and
// its payload and sets the IP protocol (IPv4 protocol, IPv6 next header of
// the fixed header) to 253 (RFC 3692, experimental). The shim is the 3GPP
// PDCP data PDU header followed by one byte holding the original protocol:
//
//	12-bit SN: 1 RRR SN[11:8] | SN[7:0]                 | proto   (3 bytes)
//	18-bit SN: 1 RRRRR SN[17:16] | SN[15:8] | SN[7:0]   | proto   (4 bytes)
//
// The IP length grows by the shim (IPv4 total length, with the header
// checksum updated; IPv6 payload length). The L4 checksum is not touched:
// Decap restores the packet byte for byte. Both sides must agree on the SN
// length (12 or 18 bits), which the header does not carry, and the links' MTU
// must leave room for the shim (ShimLen).
//
// # Foreign and malformed packets
//
// Proxies never crash on a packet and never stall their queue over one:
//
//   - Transmit: a packet Encap refuses (not IPv4/IPv6, shorter than its
//     headers, inconsistent length, bad IPv4 header checksum, already
//     carrying the shim, too big for the shim) is sent unchanged on link 0
//     without a COUNT, and counted (TxCounters.Passed).
//   - Receive: a packet that is not a PDU (ErrNotIP, ErrNotPDCP; IsForeign
//     reports true) is passed unchanged and counted as foreign; a packet with
//     protocol 253 that is malformed (ErrShort, ErrLength, ErrNoSN) is
//     dropped and counted as malformed. A PDU whose SN the receiver cannot
//     place is discarded (DiscardOld, DiscardDuplicate) and counted.
//
// # Concurrency
//
// Senders, Schedulers and Receivers belong to one goroutine each (the
// queue's loop) and are not safe for concurrent use; their counters are
// plain exported fields read from that goroutine.
package pdcp
