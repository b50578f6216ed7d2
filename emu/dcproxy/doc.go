// Package dcproxy is the PDCP data path of a DC run: a Proxy in each
// gateway carries the DC client's packets between its TUN and the two
// links as PDCP PDUs, one PDCP entity each way (and one per steered flow).
//
// Its stages: Tx.Pack (each wire segment its own COUNT, the PDCP header
// written into the headroom in front of it, PDUs grouped by the
// scheduler's link), burstLen (a group leaves in sends of at most Burst
// bytes, a millisecond of the link's rate: burstFor), Rx.Place (the SN of
// each datagram of a GRO batch through pdcp.Receiver, SDUs released in
// COUNT order; only the ones it holds are copied), the TUN write
// (coalesced again; refused writes counted, not fatal), and the
// t-Reordering timer (Rx.Expire). Its loops: tunToUDP and udpToTUN, each
// real-time while it is light (gsofwd.RTLoop), expiries (the timer) and
// watchSocket (how long PDUs waited in the receiving socket).
//
// With DC flow control (ProxyConfig.FlowControl, fc.go and fc_linux.go)
// the transmitting proxy is the PDCP host: Tx.Pack numbers an SDU only if
// a leg has credit for it, the others wait in the host buffer or are
// dropped before an SN, and fcLoop reads the legs' queues every
// FlowControlPoll, turns each into its DU's DDDS report, delays the report
// by the backhaul and applies it to the leg's credit.
//
// On the wire a PDU is the PDCP data PDU header followed by the IP packet,
// the whole UDP payload, as PDCP PDUs cross X2-U/Xn-U in GTP-U over UDP
// (without GTP-U's own header). Packets of clients bound to one link cross
// beside them bare (gsofwd.Tunnel), so the link charges both alike.
//
// It is apart from emu/internal/gsofwd, the batch mechanism it runs on
// (the TUN with offloads, UDP GSO/GRO, the real-time loop, socket
// watches): the mechanism knows nothing of PDCP and serves the plain
// Forwarder too, and this package is where PDCP meets the packets, the
// one PDCP path, beside package pdcp's protocol logic.
package dcproxy
