package endpoint

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"syscall"
)

// A send stamp's time must be the time its bytes can enter the transport.
// net/http's HTTP/2 Write blocks, inside the kernel, while the socket holds
// more than TCP_NOTSENT_LOWAT unsent bytes: a time taken before that
// Write would count the drain of the piece before (64 KiB, 26 ms at
// 20 Mbit/s) as the stamp's own delay. The TCP server therefore waits
// until its socket is writable before it takes a stamp's time.

type sendWaitKey struct{}

// withSendWait makes the requests of connection c (a *tls.Conn over a TCP
// socket) wait for the socket to be writable before each send stamp.
func withSendWait(ctx context.Context, c net.Conn) context.Context {
	rc, err := socketOf(c)
	if err != nil {
		return ctx
	}
	return context.WithValue(ctx, sendWaitKey{}, rc)
}

// errNoSocket is socketOf's error for a connection without a socket of
// its own (QUIC streams).
var errNoSocket = errors.New("not a socket")

// socketOf is the socket under c, a TCP connection or TLS over one.
func socketOf(c net.Conn) (syscall.RawConn, error) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, errNoSocket
	}
	return sc.SyscallConn()
}

// waitSendable blocks until the request's socket takes data without
// blocking; it returns at once for connections without one (QUIC).
func waitSendable(ctx context.Context) {
	if rc, ok := ctx.Value(sendWaitKey{}).(syscall.RawConn); ok {
		waitWritable(rc)
	}
}
