package endpoint

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"
)

// TCP_NOTSENT_LOWAT of the TCP server (ServerConfig.NotSentLowat).
const (
	DefaultNotSentLowat = 16 << 10
	NoLowat             = -1
)

// serveTCP runs net/http's HTTP/2 server over TLS 1.3 with the congestion
// control set on the listener and verified on every accepted socket.
func serveTCP(ctx context.Context, cfg *ServerConfig) error {
	tlsConf, closeKeys, err := serverTLS(cfg)
	if err != nil {
		return err
	}
	defer closeKeys()
	var listenErr error
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		// Failing here, before "ready", is the clear error for a cc the
		// kernel refuses; accepted sockets inherit the listener's.
		if err := rc.Control(func(fd uintptr) {
			if _, listenErr = setCongestion(int(fd), cfg.CC); listenErr == nil {
				listenErr = setNotSentLowat(int(fd), cfg.NotSentLowat)
			}
		}); err != nil {
			return err
		}
		return listenErr
	}}
	lc.SetMultipathTCP(cfg.MPTCP)
	logs, err := newTCPInfoLogs(cfg)
	if err != nil {
		return err
	}
	bdp := newBDPServer(cfg)
	defer func() {
		if err := bdp.close(); err != nil {
			fmt.Fprintf(cfg.Log, "resume bdp: %v\n", err)
		}
	}()
	ln, err := lc.Listen(ctx, "tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Listen, err)
	}
	if cfg.MPTCP {
		if err := checkMPTCPListener(ln); err != nil {
			ln.Close()
			return err
		}
	}
	cl := &ccListener{TCPListener: ln.(*net.TCPListener), cc: cfg.CC, lowat: cfg.NotSentLowat, onConn: cfg.accepted, mptcp: cfg.MPTCP, logs: logs}
	defer cl.Close()
	defer logs.close() // after the connections, so every log has its last sample

	var protos http.Protocols
	protos.SetHTTP2(true) // HTTP/2 only: a client that cannot do it fails the handshake
	srv := &http.Server{
		Handler:           newHandler(cfg),
		Protocols:         &protos,
		TLSConfig:         tlsConf,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          newLogger(cfg.Log),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return bdp.connContext(withSendWait(ctx, c), c)
		},
	}
	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(cl, "", "") }()
	cfg.ready(ln.Addr().String())

	select {
	case <-ctx.Done():
		srv.Close()
		<-served
		return nil
	case err := <-served:
		srv.Close()
		if errors.Is(err, http.ErrServerClosed) {
			err = errors.New("server stopped by itself")
		}
		return err
	}
}

// ccListener sets and verifies the congestion control of every accepted
// socket. A socket the kernel refuses it for stops the server: a flow must
// never run with a controller other than the one recorded.
type ccListener struct {
	*net.TCPListener
	cc     string
	lowat  int
	onConn func(ConnInfo)
	mptcp  bool
	logs   *tcpInfoLogs // nil: no TCP_INFO logs
}

func (l *ccListener) Accept() (net.Conn, error) {
	for {
		c, err := l.accept()
		if c != nil || err != nil {
			return c, err
		}
	}
}

// accept returns nil, nil for a connection it closed and reported.
func (l *ccListener) accept() (net.Conn, error) {
	c, err := l.AcceptTCP()
	if err != nil {
		return nil, err
	}
	var got string
	err = withFD(c, func(fd int) error {
		var err error
		if got, err = setCongestion(fd, l.cc); err != nil {
			return err
		}
		return setNotSentLowat(fd, l.lowat)
	})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("accepted %s: %w", c.RemoteAddr(), err)
	}
	info := ConnInfo{Remote: c.RemoteAddr().String(), CC: got, MPTCP: l.mptcp}
	if l.mptcp {
		if err := checkAcceptedMPTCP(c); err != nil {
			info.Error = err.Error()
			l.onConn(info)
			c.Close()
			return nil, nil
		}
	}
	l.onConn(info)
	return l.logs.sample(c, got, l.mptcp)
}
