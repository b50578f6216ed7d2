// Package pdcp holds the PDCP algorithms of the Dual Connectivity proxies:
// the transmit side (COUNT assignment per entity, the data PDU header, and
// the path schedulers that choose link 0, link 1 or both for every PDU)
// and the receive side (TS 38.323 reordering with t-Reordering, duplicate
// and out-of-window discard, SN wrap-around), see
// docs/pdcp-reordering.md.
//
// The package is pure: it touches no kernel, socket or timer, and never
// reads the clock. Every call that depends on time takes now (any monotonic
// time.Duration, e.g. since the run's start), and the receiver returns its
// next deadline (Receiver.Deadline) for the caller's one timer. A
// direction's entities, the DC client's and one per steered flow
// (SteerRule), are kept by TxEntities and RxEntities. emu/dcproxy, the one
// data path, runs them on batches of packets; the receiver stores only the
// caller's Handle, never packet bytes (dcproxy copies only the SDUs the
// receiver holds). PutHeader and ParseHeader write and read the header of
// a PDU carried whole in a UDP datagram. Nothing on the per-packet path
// allocates.
//
// # Wire format
//
// A PDU is the 3GPP PDCP data PDU header (TS 38.323 §6.2.2; TS 36.323's
// long-SN header for 12 bits) followed by the SDU, the whole IP packet as
// the gateway's TUN gave it, byte for byte:
//
//	12-bit SN: D/C R R R SN[11:8] | SN[7:0]                 (2 bytes)
//	18-bit SN: D/C R R R R R SN[17:16] | SN[15:8] | SN[7:0] (3 bytes)
//
// PutHeader sets D/C to 1 (data PDU) and the reserved bits R to 0 and sends
// only the SN's low bits; ParseHeader ignores the R bits, as the receiver
// must. The PDU is the payload of one UDP datagram between the gateways'
// proxies, on port 2152 (GTP-U's) at both ends, as PDCP PDUs cross
// X2-U/Xn-U in GTP-U over UDP, without GTP-U's own header. The links
// charge the PDU, not the UDP and IP headers around it (the shaper runs
// faster by them). Both sides must agree on the SN length (12 or 18 bits),
// which the header does not carry; HeaderLen gives the header's size.
//
// # Foreign and malformed packets
//
// Proxies never crash on a datagram and never stall their loop over one.
// A datagram shorter than the header (ErrShort) or carrying a control PDU,
// D/C = 0 (ErrNoSN), carries no data PDU: emu/dcproxy drops it and counts
// it as malformed (Rx.Malformed). Other clients' packets that cross a link
// in the same UDP (tunnelled, see emu/dcproxy) are bare IP packets,
// without a header and without a COUNT: the receiving proxy tells them by
// their first nibble, IP version 4 or 6, which leaves the D/C bit 0, and
// passes them on as they came, never to the receiver. A PDU whose SN the
// receiver cannot place is discarded (DiscardOld, DiscardDuplicate) and
// counted.
//
// # Flow control
//
// With DC flow control on (FlowControlConfig),
// each leg reports a desired buffer size in a DL DATA DELIVERY STATUS frame
// (TS 38.425; DeliveryStatus, Reporter) and the transmit side sends a leg
// no more than that beyond what it reported delivered (Leg, TS 38.425
// §5.4.2.1). FlowControl.Wrap puts any scheduler under that rule; the
// credit scheduler (KindCredit) also picks among the legs with credit by
// earliest delivery, in runs. The caller asks FlowControl.Admits before
// numbering an SDU and holds or drops one that no leg takes, so it uses no
// COUNT; NoLinks is the pick that sends nowhere. These are the rules, the
// report frame and a leg's reporting, tested here on their own and in a
// closed loop (fc_sim_test.go); emu/dcproxy runs them on the links' queues
// (docs/flow-control.md).
//
// # Concurrency
//
// Senders, Schedulers and Receivers belong to one goroutine each (the
// proxy's loop) and are not safe for concurrent use; their counters are
// plain exported fields read from that goroutine.
package pdcp
