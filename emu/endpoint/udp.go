package endpoint

import (
	"fmt"
	"net"
)

// listenUDP opens the UDP socket a server listens on (QUIC and cbr).
func listenUDP(listen string) (*net.UDPConn, error) {
	laddr, err := net.ResolveUDPAddr("udp", listen)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", listen, err)
	}
	conn, err := net.ListenUDP("udp", laddr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", listen, err)
	}
	return conn, nil
}

// udpSocketTo resolves a server's host:port and opens an unconnected UDP
// socket of its address family (QUIC and cbr clients).
func udpSocketTo(addr string) (*net.UDPAddr, *net.UDPConn, error) {
	raddr, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("resolve: %w", err)
	}
	network := "udp4"
	if raddr.IP.To4() == nil {
		network = "udp6"
	}
	conn, err := net.ListenUDP(network, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("udp socket: %w", err)
	}
	return raddr, conn, nil
}
