package endpoint

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// serveQuicGo runs quic-go's HTTP/3 server on its own UDP socket.
func serveQuicGo(ctx context.Context, cfg *ServerConfig) error {
	conf, closeKeys, err := serverTLS(cfg)
	if err != nil {
		return err
	}
	defer closeKeys()
	udp, err := listenUDP(cfg.Listen)
	if err != nil {
		return err
	}
	defer udp.Close()
	tr := &quic.Transport{Conn: udp}
	defer tr.Close()

	qlogs := newQlogSink(cfg.QlogFile, cfg.Log)
	tlsConf := http3.ConfigureTLSConfig(conf)
	// An early listener with 0-RTT allowed, as http3's own servers have:
	// clients that resume may send their request in their first flight.
	ln, err := tr.ListenEarly(tlsConf, &quic.Config{Tracer: qlogs.tracer(), Allow0RTT: true})
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Listen, err)
	}
	srv := &http3.Server{
		Handler: newHandler(cfg),
		ConnContext: func(ctx context.Context, c *quic.Conn) context.Context {
			cfg.accepted(ConnInfo{Remote: c.RemoteAddr().String(), CC: CCNewReno})
			return ctx
		},
	}
	served := make(chan error, 1)
	go func() { served <- srv.ServeListener(ln) }()
	cfg.ready(udp.LocalAddr().String())

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}
	// Close sends CONNECTION_CLOSE on every connection and waits for their
	// handlers; closing the transport also ends half-open handshakes, so
	// every qlog file gets its last event.
	closeErr := srv.Close()
	ln.Close()
	tr.Close()
	if serveErr == nil {
		serveErr = <-served
	}
	if errors.Is(serveErr, http.ErrServerClosed) || errors.Is(serveErr, quic.ErrServerClosed) {
		serveErr = nil
	}
	qlogErr := qlogs.wait(shutdownGrace)
	if ctx.Err() == nil && serveErr == nil {
		serveErr = errors.New("server stopped by itself")
	}
	return errors.Join(serveErr, closeErr, qlogErr)
}
