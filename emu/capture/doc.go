// Package capture records the packets of one network interface inside a
// network namespace into a pcapng file, from Go, with no tcpdump or
// libpcap: an AF_PACKET socket opened inside the namespace with a
// TPACKET_V3 mmap ring (32 × 1 MiB blocks), read by one goroutine that
// writes each packet as an enhanced packet block (nanosecond timestamps,
// if_tsresol 9; epb_flags with the direction) through a buffer.
//
// Stages: Start opens the socket in the namespace, reads the interface's
// link type (Ethernet, loopback or none), sets up the ring with
// PACKET_VNET_HDR, writes the section and interface description blocks,
// and only then binds the socket to the interface, so the file holds no
// packet of another interface. The loop hands every block the kernel
// retires (full, or 10 ms after its first packet) to the writer. Close
// stops the loop after the last block is retired, reads
// PACKET_STATISTICS, writes an interface statistics block (isb_ifrecv and
// isb_ifdrop from the kernel, isb_usrdeliv the packets written) and
// returns the same counts as Stats.
//
// GSO: on a veth the capture sees what the sending socket handed down,
// often a TCP or UDP (quic-go's UDP_SEGMENT) super-packet of up to 64 KiB.
// Such packets are written as the wire packets they stand for (see
// segment.go), so Wireshark decrypts QUIC from the file and the number of
// packets in it is the number the sender sent. That is why the ring copies
// whole packets and the snap length is applied to each segment here, not
// in the kernel.
//
// A capture costs nothing until Start is called: there is no socket, no
// goroutine and no filter in the data path. It must not change what it
// captures: it sets no interface feature (offloads stay as they are), no
// promiscuous mode and no filter.
package capture
