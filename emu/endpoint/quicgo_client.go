package endpoint

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// Receive-side settings of RcvBufLarge (see the package documentation).
const (
	largeRcvBuf        = 8 << 20  // SO_RCVBUFFORCE; the kernel reports twice this
	largeStreamWindow  = 16 << 20 // initial = max stream flow-control window
	largeConnWindow    = 24 << 20 // initial = max connection flow-control window
	readBufSize        = 64 << 10
	clientCloseTimeout = 3 * time.Second
)

var errHandshakeTimeout = errors.New("handshake timeout")

// downloadQuicGo fetches the URL over HTTP/3 with quic-go.
func downloadQuicGo(ctx context.Context, cfg *ClientConfig, m *meter) (Result, error) {
	fail := func(err error) (Result, error) {
		r, err := m.finish(time.Now(), endError, unknownSize, err)
		r.CC = cfg.CC
		return r, err
	}
	tlsConf, closeKeys, err := clientTLS(cfg)
	if err != nil {
		return fail(err)
	}
	defer closeKeys()
	sock, err := openQUICSocket(hostPort(cfg.URL), cfg.RcvBuf)
	if err != nil {
		return fail(err)
	}
	defer sock.close()
	tr, raddr, rcvbuf := sock.tr, sock.raddr, sock.rcvbuf

	qlogs := newQlogSink(cfg.QlogFile, cfg.Log)
	qconf := quicConfig(cfg, qlogs)
	var handshaken atomic.Bool
	h3 := &http3.Transport{
		TLSClientConfig: tlsConf,
		QUICConfig:      qconf,
		Dial: func(ctx context.Context, _ string, tlsConf *tls.Config, qc *quic.Config) (*quic.Conn, error) {
			hctx, cancel := context.WithTimeoutCause(ctx, cfg.HandshakeTimeout, errHandshakeTimeout)
			defer cancel()
			c, err := tr.Dial(hctx, raddr, tlsConf, qc)
			handshaken.Store(err == nil)
			return c, err
		},
	}

	f, err := fetch(ctx, h3, cfg, m, nil, nil)
	if err != nil {
		return fail(err)
	}
	// Closing the transport sends CONNECTION_CLOSE and ends the qlog.
	closeErr := h3.Close()
	qlogErr := qlogs.wait(clientCloseTimeout)
	r, err := m.finish(f.at, f.reason, f.expected, describeQUIC(f.err, hostPort(cfg.URL), cfg, handshaken.Load(), m.bytes.Load()))
	r.CC, r.RcvBufBytes = cfg.CC, rcvbuf
	if err == nil {
		err = errors.Join(closeErr, qlogErr)
		r.Complete = err == nil
	}
	return r, err
}

// applyRcvBuf gives the client's UDP socket the receive buffer of mode
// and returns its size as the kernel reports it. quic-go enlarges the
// buffer to 7 MiB when the Transport initialises, so for the default mode
// the Transport is initialised here (ReadNonQUICPacket with a cancelled
// context does only that) and the fresh socket's size is put back.
func applyRcvBuf(udp *net.UDPConn, tr *quic.Transport, mode RcvBuf) (int, error) {
	orig, err := rcvBuf(udp)
	if err != nil {
		return 0, err
	}
	switch mode {
	case RcvBufLarge:
		if err := setRcvBuf(udp, largeRcvBuf, false); err != nil {
			return 0, fmt.Errorf("rcvbuf large (needs CAP_NET_ADMIN): %w", err)
		}
		got, err := rcvBuf(udp)
		if err != nil {
			return 0, err
		}
		if got < largeRcvBuf {
			return 0, fmt.Errorf("rcvbuf large: asked for %d bytes, the kernel reports %d", largeRcvBuf, got)
		}
		return got, nil
	default:
		done, cancel := context.WithCancel(context.Background())
		cancel()
		if _, _, err := tr.ReadNonQUICPacket(done, nil); !errors.Is(err, context.Canceled) {
			return 0, fmt.Errorf("initialise quic-go transport: %w", err)
		}
		if err := setRcvBuf(udp, orig/2, true); err != nil {
			return 0, fmt.Errorf("rcvbuf default: %w", err)
		}
		got, err := rcvBuf(udp)
		if err != nil {
			return 0, err
		}
		if got != orig {
			return 0, fmt.Errorf("rcvbuf default: could not restore the kernel default of %d bytes (now %d)", orig, got)
		}
		return got, nil
	}
}

// describeQUIC rewrites quic-go's errors as the reasons a run shows.
// handshaken tells a silent peer before the handshake completed (quic-go
// may report its handshake idle timeout as an idle timeout) from one after.
func describeQUIC(err error, addr string, cfg *ClientConfig, handshaken bool, got int64) error {
	if err == nil || errors.Is(err, errInterrupted) {
		return err
	}
	var idle *quic.IdleTimeoutError
	var hsTimeout *quic.HandshakeTimeoutError
	var appErr *quic.ApplicationError
	var trErr *quic.TransportError
	var strErr *quic.StreamError
	switch {
	case errors.Is(err, errHandshakeTimeout) || errors.As(err, &hsTimeout) || (!handshaken && errors.As(err, &idle)):
		return fmt.Errorf("handshake timeout: no QUIC handshake with %s within %v (is a QUIC server listening there?)", addr, cfg.HandshakeTimeout)
	case errors.As(err, &idle):
		return fmt.Errorf("server gone: no packet from %s for %v (idle timeout) after %d bytes", addr, cfg.IdleTimeout, got)
	case errors.As(err, &appErr) && appErr.Remote, errors.As(err, &trErr) && trErr.Remote:
		return fmt.Errorf("server closed the connection after %d bytes: %w", got, err)
	case errors.As(err, &strErr):
		return fmt.Errorf("server reset the stream after %d bytes: %w", got, err)
	}
	return describeNet(err, addr, got)
}
