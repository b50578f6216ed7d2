package network

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
)

// PingPort is the UDP port of the echo responder Ping runs in the target.
const PingPort = 7

// Ping measures round-trip times of small UDP packets from one node to
// another: count probes of 64 bytes, one every interval, each answered by an
// echo responder in the target's namespace. Probes that get no answer
// within a second count as lost and are left out.
func (e *Emulation) Ping(ctx context.Context, from, to string, count int, interval time.Duration) (rtts []time.Duration, lost int, err error) {
	src, err := e.Net.Node(from)
	if err != nil {
		return nil, 0, err
	}
	dst, err := e.Net.Node(to)
	if err != nil {
		return nil, 0, err
	}
	addrs := e.Net.Spec.Addrs(to)
	if len(addrs) == 0 {
		return nil, 0, fmt.Errorf("ping: node %s has no address", to)
	}
	target := netip.AddrPortFrom(addrs[0].Addr(), PingPort)
	var echo, conn *net.UDPConn
	if err := dst.Do(func() (err error) {
		echo, err = net.ListenUDP("udp4", net.UDPAddrFromAddrPort(target))
		return err
	}); err != nil {
		return nil, 0, fmt.Errorf("ping: echo responder in %s: %w", to, err)
	}
	defer echo.Close()
	go echoUDP(echo)
	if err := src.Do(func() (err error) {
		conn, err = net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(target))
		return err
	}); err != nil {
		return nil, 0, fmt.Errorf("ping: socket in %s: %w", from, err)
	}
	defer conn.Close()
	return pingLoop(ctx, conn, count, interval)
}

// echoUDP sends every datagram c receives back to its sender until c is
// closed.
func echoUDP(c *net.UDPConn) {
	buf := make([]byte, 2048)
	for {
		n, a, err := c.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		c.WriteToUDPAddrPort(buf[:n], a)
	}
}

func pingLoop(ctx context.Context, conn *net.UDPConn, count int, interval time.Duration) ([]time.Duration, int, error) {
	buf := make([]byte, 64)
	in := make([]byte, 2048)
	start := time.Now()
	var rtts []time.Duration
	lost := 0
	for i := range count {
		if ctx.Err() != nil {
			return rtts, lost, ctx.Err()
		}
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			time.Sleep(wait)
		}
		binary.BigEndian.PutUint64(buf, uint64(i))
		sent := time.Now()
		if _, err := conn.Write(buf); err != nil {
			return rtts, lost, err
		}
		conn.SetReadDeadline(sent.Add(time.Second))
		for {
			n, err := conn.Read(in)
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					lost++
					break
				}
				return rtts, lost, err
			}
			if n >= 8 && binary.BigEndian.Uint64(in) == uint64(i) {
				rtts = append(rtts, time.Since(sent))
				break
			}
		}
	}
	return rtts, lost, nil
}
