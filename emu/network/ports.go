package network

import "github.com/dc-emu/emu/emu/config"

// Port bases of the flows' servers; flow i listens on base+i.
const (
	quicPortBase = 4433
	tcpPortBase  = 8443
)

// ServerPort is the port of flow i's server (UDP for QUIC and cbr): the
// run starts the server there, and the network steers a flow with a PDCP
// scheduler of its own by it.
func ServerPort(f config.Flow, i int) uint16 {
	if f.Proto == "tcp" {
		return uint16(tcpPortBase + i)
	}
	return uint16(quicPortBase + i)
}
