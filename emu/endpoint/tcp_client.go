package endpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"
)

// tcpStreamWindow is the HTTP/2 receive window of the TCP client.
const tcpStreamWindow = 64 << 20

// downloadTCP fetches the URL over HTTP/2 over TLS 1.3 with the congestion
// control set on the socket before connect and read back after.
func downloadTCP(ctx context.Context, cfg *ClientConfig, m *meter) (Result, error) {
	var cc string // what the kernel reports on the connected socket
	fail := func(err error) (Result, error) {
		r, err := m.finish(time.Now(), endError, unknownSize, err)
		r.CC = cc
		return r, err
	}
	tlsConf, closeKeys, err := clientTLS(cfg)
	if err != nil {
		return fail(err)
	}
	defer closeKeys()
	addr := hostPort(cfg.URL)
	dialer := ccDialer(cfg)
	dialer.SetMultipathTCP(cfg.MPTCP)
	var mpConn *net.TCPConn // the MPTCP connection, checked again at the end
	tr := h2Transport(cfg, tlsConf, func(ctx context.Context, network, a string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, a)
		if err != nil {
			return nil, err
		}
		err = withFD(c.(*net.TCPConn), func(fd int) error {
			var err error
			cc, err = setCongestion(fd, cfg.CC)
			return err
		})
		if err == nil && cfg.MPTCP {
			if err = checkMPTCP(c.(*net.TCPConn)); err == nil {
				mpConn = c.(*net.TCPConn)
			}
		}
		if err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	})
	defer tr.CloseIdleConnections()

	f, err := fetch(ctx, tr, cfg, m, func(resp *http.Response) error {
		if resp.ProtoMajor != 2 {
			return fmt.Errorf("server spoke %s, not HTTP/2", resp.Proto)
		}
		return nil
	}, func() error {
		if mpConn == nil {
			return nil
		}
		// A fallback after the handshake (an infinite mapping) counts too.
		return checkMPTCP(mpConn)
	})
	if err != nil {
		return fail(err)
	}
	r, err := m.finish(f.at, f.reason, f.expected, describeNet(f.err, addr, m.bytes.Load()))
	r.CC = cc
	return r, err
}

// describeNet rewrites socket-level errors as the reasons a run shows.
func describeNet(err error, addr string, got int64) error {
	if err == nil || errors.Is(err, errInterrupted) {
		return err
	}
	var fe *fallbackError
	if errors.As(err, &fe) { // not buried under net/http's dial wrapping
		return fmt.Errorf("after %d bytes: %w", got, fe)
	}
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("connection refused by %s (nothing listening): %w", addr, err)
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return fmt.Errorf("no route to %s: %w", addr, err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return fmt.Errorf("server closed the connection early, after %d bytes: %w", got, err)
	case got == 0 && errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("handshake timeout: no connection with %s: %w", addr, err)
	}
	return fmt.Errorf("after %d bytes: %w", got, err)
}
