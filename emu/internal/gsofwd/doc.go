// Package gsofwd moves IP packets between a TUN device and UDP in batches,
// as wireguard-go does without its cryptography: the TUN is opened with
// IFF_VNET_HDR and TCP/UDP segmentation offloads, so one read brings a TCP
// super-packet of up to 64 KB that the library splits into wire segments;
// the segments leave over UDP with UDP_SEGMENT, a batch per send; the
// receiving side takes UDP_GRO batches (its own recvmmsg, UDPReceiver:
// the library's allocates per datagram) and writes them back to its TUN
// coalesced into super-packets.
//
// It is the mechanism only, and knows nothing of PDCP (it does not import
// pdcp). What it offers a packet path:
//
//   - Ends (OpenEnds): the TUN with offloads (its queue grown to
//     TUNQueueLen, TUNDrops), the UDP socket (a 64 MiB receive buffer,
//     SocketDrops) and its peers; packets sit at Headroom of BufSize
//     buffers. Run runs a path's two loops and its timers, and closes
//     the ends when done.
//   - RTLoop (Ends.NewRTLoop): a loop real-time while it is light, a
//     goroutine of the poller while busy; RTSpells says for how long.
//   - SocketWatch and SocketQueue: how long the bytes read had waited in
//     the receiving socket, from looks at its queue every SocketPeriod.
//   - Tunnel, Tunnels and Tunnelled: the packets of clients bound to one
//     link cross it bare, beside a path's own datagrams, told apart by
//     their first byte.
//
// Its users: Forwarder, no PDCP logic, issue #39's go/no-go measurement
// (how fast a user-space path that moves batches forwards kernel TCP
// here), and the PDCP data path, emu/dcproxy.
package gsofwd
