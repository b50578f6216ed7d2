// Package gsofwd moves IP packets between a TUN device and UDP in batches,
// as wireguard-go does without its cryptography: the TUN is opened with
// IFF_VNET_HDR and TCP/UDP segmentation offloads, so one read brings a TCP
// super-packet of up to 64 KB that the library splits into wire segments;
// the segments leave over UDP with UDP_SEGMENT, a batch per send; the
// receiving side takes UDP_GRO batches (its own recvmmsg, udpReceiver:
// the library's allocates per datagram) and writes them back to its TUN
// coalesced into super-packets.
//
// It has two users of that machinery:
//
//   - Forwarder, no PDCP logic: issue #39's go/no-go measurement, how fast
//     a user-space path that moves batches forwards kernel TCP here.
//   - Proxy, the PDCP data path on batches. Its stages: Tx.Pack (each wire
//     segment its own COUNT, the PDCP header written into the headroom in
//     front of it, PDUs grouped by the scheduler's link), burstLen (a
//     group leaves in sends of at most Burst bytes), Rx.Place (the SN of
//     each datagram of a GRO batch through pdcp.Receiver, SDUs released in
//     COUNT order; only the ones it holds are copied), the TUN write
//     (coalesced again), and the t-Reordering timer (Rx.Expire). Each of
//     its two loops is real-time while it is light (rtLoop).
//
// On the wire a PDU is the PDCP data PDU header followed by the IP packet,
// the whole UDP payload, as PDCP PDUs cross X2-U/Xn-U in GTP-U over UDP
// (without GTP-U's own header). Packets of clients bound to one link cross
// beside them bare (Tunnel), so the link charges both alike.
package gsofwd
