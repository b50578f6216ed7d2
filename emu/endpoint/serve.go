package endpoint

import (
	"context"
	"fmt"
	"io"
	"log"
	"time"
)

// shutdownGrace bounds how long a stopping server waits for its
// connections to close and its qlog files to be written.
const shutdownGrace = 3 * time.Second

// Serve runs a server until ctx is cancelled, then closes every connection
// and returns nil. It returns an error if the server cannot start or dies.
// cfg.Ready is called once the server accepts connections.
func Serve(ctx context.Context, cfg ServerConfig) error {
	if err := cfg.validate(); err != nil {
		return fmt.Errorf("endpoint server: %w", err)
	}
	var err error
	switch {
	case cfg.Proto == ProtoUDP:
		err = serveCBR(ctx, &cfg)
	case cfg.Impl == ImplQuicGo:
		err = serveQuicGo(ctx, &cfg)
	case cfg.Impl == ImplNgtcp2:
		err = serveNgtcp2(ctx, &cfg)
	case cfg.Impl == ImplGo:
		err = serveTCP(ctx, &cfg)
	}
	if err != nil {
		return fmt.Errorf("endpoint server (%s): %w", cfg.Impl, err)
	}
	return nil
}

func (c *ServerConfig) ready(addr string) {
	if c.Ready != nil {
		c.Ready(addr)
	}
}

func (c *ServerConfig) accepted(info ConnInfo) {
	if c.OnConn != nil {
		c.OnConn(info)
	}
}

func newLogger(w io.Writer) *log.Logger { return log.New(w, "endpoint: ", 0) }
