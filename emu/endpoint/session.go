package endpoint

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/workload"
)

// connector opens the HTTP connections of a workload client to its one
// server: HTTP/3 over quic-go, or HTTP/2 over TLS 1.3 over TCP with the
// congestion control set on every socket. Every connection shares one TLS
// configuration and, with resumption, one session cache, so the ticket one
// connection received is what the next one resumes with.
type connector struct {
	cfg     *ClientConfig
	addr    string // host:port of the server
	tlsConf *tls.Config
	tickets *ticketCache // nil without resumption
	zeroRTT bool

	// QUIC
	raddr  *net.UDPAddr
	udp    *net.UDPConn
	tr     *quic.Transport
	h3     *http3.Transport
	qconf  *quic.Config
	qlogs  *qlogSink
	rcvbuf int

	// TCP
	htr *http.Transport
	mu  sync.Mutex
	cc  string // what the kernel reports on the last connected socket
	// resume bdp: the receive buffer of the measured connections (0: the
	// kernel's, autotuned) and how to remove the route that carries their
	// initrwnd.
	rcvBuf    atomic.Int64
	undoRoute func() error

	closeKeys func() // the key log's; nil until newConnector has it
}

// hconn is one connection: requests go through rt. Once handshaken is
// closed, handshake, resumed and zeroRTT say how it was set up.
type hconn struct {
	rt interface {
		RoundTrip(*http.Request) (*http.Response, error)
	}
	close      func() error
	started    time.Time
	handshaken chan struct{}
	handshake  time.Duration
	zeroRTT    bool
	// resumed is set before handshaken is closed (QUIC) or by the first
	// response (TCP, whose TLS state only responses carry).
	mu      sync.Mutex
	resumed bool
}

// setup returns when the connection's handshake is done (or ctx ends) with
// how long it took and whether it resumed a session and sent 0-RTT data
// the server accepted.
func (h *hconn) setup(ctx context.Context) (time.Duration, bool, bool) {
	select {
	case <-h.handshaken:
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.handshake, h.resumed, h.zeroRTT
	case <-ctx.Done():
		return 0, false, false
	}
}

func newConnector(cfg *ClientConfig) (*connector, error) {
	c := &connector{cfg: cfg, addr: hostPort(cfg.URL)}
	var err error
	if c.tlsConf, c.closeKeys, err = clientTLS(cfg); err != nil {
		return nil, err
	}
	if r := cfg.Work.resume(); r != workload.ResumeOff {
		c.tickets = newTicketCache()
		c.tlsConf.ClientSessionCache = c.tickets
		c.zeroRTT = r == workload.Resume0RTT
	}
	if cfg.Proto == ProtoQUIC {
		err = c.openQUIC()
	} else {
		c.openTCP()
	}
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *connector) openQUIC() error {
	sock, err := openQUICSocket(c.addr, c.cfg.RcvBuf)
	if err != nil {
		return err
	}
	c.raddr, c.udp, c.tr, c.rcvbuf = sock.raddr, sock.udp, sock.tr, sock.rcvbuf
	c.qlogs = newQlogSink(c.cfg.QlogFile, c.cfg.Log)
	c.qconf = quicConfig(c.cfg, c.qlogs)
	if c.tickets != nil {
		// A token from the first connection validates the client's address,
		// so the server's first flight is not held to three times what the
		// client sent (RFC 9000 §8.1) and 0.5-RTT data flows at once.
		c.qconf.TokenStore = quic.NewLRUTokenStore(4, 4)
	}
	c.tlsConf.NextProtos = []string{http3.NextProtoH3} // connections are dialled here, not by http3
	c.h3 = &http3.Transport{TLSClientConfig: c.tlsConf, QUICConfig: c.qconf}
	return nil
}

func (c *connector) openTCP() {
	dialer := ccDialer(c.cfg)
	ccControl := dialer.Control
	dialer.Control = func(network, address string, rc syscall.RawConn) error {
		if err := ccControl(network, address, rc); err != nil {
			return err
		}
		n := c.rcvBuf.Load()
		if n == 0 {
			return nil
		}
		// Before connect, so the SYN's window scale and the first window
		// the client advertises come from it.
		var serr error
		if err := rc.Control(func(fd uintptr) { serr = setRcvBufFD(int(fd), int(n)) }); err != nil {
			return err
		}
		return serr
	}
	c.htr = h2Transport(c.cfg, c.tlsConf, func(ctx context.Context, network, a string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, a)
		if err != nil {
			return nil, err
		}
		err = withFD(conn.(*net.TCPConn), func(fd int) error {
			got, err := setCongestion(fd, c.cfg.CC)
			c.mu.Lock()
			c.cc = got
			c.mu.Unlock()
			return err
		})
		if err != nil {
			conn.Close()
			return nil, err
		}
		return conn, nil
	})
}

// dial opens a new connection. Over QUIC with 0-RTT it returns as soon as
// requests can be sent (before the handshake completes); otherwise once
// the handshake is done.
func (c *connector) dial(ctx context.Context) (*hconn, error) {
	h := &hconn{started: time.Now(), handshaken: make(chan struct{})}
	if c.cfg.Proto != ProtoQUIC {
		cc, err := c.htr.NewClientConn(ctx, "https", c.addr)
		if err != nil {
			return nil, err
		}
		h.handshake = time.Since(h.started)
		h.rt, h.close = cc, cc.Close
		close(h.handshaken) // resumed is learnt from the first response
		return h, nil
	}
	hctx, cancel := context.WithTimeoutCause(ctx, c.cfg.HandshakeTimeout, errHandshakeTimeout)
	var qc *quic.Conn
	var err error
	if c.zeroRTT {
		qc, err = c.tr.DialEarly(hctx, c.raddr, c.tlsConf, c.qconf)
	} else {
		qc, err = c.tr.Dial(hctx, c.raddr, c.tlsConf, c.qconf)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	go func() {
		defer cancel()
		defer close(h.handshaken)
		select {
		case <-qc.HandshakeComplete():
			h.handshake = time.Since(h.started)
			cs := qc.ConnectionState()
			h.mu.Lock()
			h.resumed, h.zeroRTT = cs.TLS.DidResume, cs.Used0RTT
			h.mu.Unlock()
		case <-qc.Context().Done():
		}
	}()
	cc := c.h3.NewClientConn(qc)
	h.rt = cc
	h.close = func() error { return qc.CloseWithError(0, "") }
	return h, nil
}

// sharedConn opens the connection all of a flow's requests go over, or
// nothing when each request opens its own (Work.NewConns). The caller
// closes it.
func (c *connector) sharedConn(ctx context.Context) (*hconn, error) {
	if c.cfg.Work.NewConns {
		return nil, nil
	}
	h, err := c.dial(ctx)
	if err != nil {
		return nil, describeWork(err, c.cfg, c.addr, 0)
	}
	return h, nil
}

// get asks h for n bytes of /bytes/n (in 0-RTT when the connection has
// it) and returns the response.
func (c *connector) get(ctx context.Context, h *hconn, n int64) (*http.Response, error) {
	method := http.MethodGet
	if c.zeroRTT && c.cfg.Proto == ProtoQUIC {
		method = http3.MethodGet0RTT
	}
	req, err := http.NewRequestWithContext(ctx, method, BytesURL(c.addr, n), nil)
	if err != nil {
		return nil, err
	}
	return c.roundTrip(h, req)
}

// roundTrip sends req on h and checks the response's status and protocol;
// a TCP connection learns from it whether TLS resumed.
func (c *connector) roundTrip(h *hconn, req *http.Request) (*http.Response, error) {
	resp, err := h.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	switch {
	case c.cfg.Proto == ProtoTCP && resp.ProtoMajor != 2:
		err = fmt.Errorf("server spoke %s, not HTTP/2", resp.Proto)
	case resp.StatusCode != http.StatusOK:
		err = fmt.Errorf("server answered %s", resp.Status)
	}
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	if c.cfg.Proto == ProtoTCP && resp.TLS != nil {
		h.mu.Lock()
		h.resumed = resp.TLS.DidResume
		h.mu.Unlock()
	}
	return resp, nil
}

// warmUp opens the first connection of a flow that resumes: it fetches
// size bytes (one, unless the path is measured), waits for the session
// ticket and closes. With resume bdp it also asks the server for the path
// state it measured on the connection (path) and opens the client's
// receive window for the measured connections. It returns the
// connection's set-up time and how long the fetch took.
func (c *connector) warmUp(ctx context.Context, size int64) (handshake, fct time.Duration, path *results.PathState, err error) {
	h, err := c.dial(ctx)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("first connection: %w", err)
	}
	defer h.close()
	resp, err := c.get(ctx, h, size)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if err != nil {
		return 0, 0, nil, fmt.Errorf("first connection: %w", err)
	}
	fct = time.Since(h.started)
	if c.cfg.Work.resume() == workload.ResumeBDP {
		p, err := c.fetchPathState(ctx, h)
		if err == nil {
			err = c.openWindow(&p)
		}
		if err != nil {
			return 0, 0, nil, fmt.Errorf("first connection: %w", err)
		}
		path = &p
	}
	handshake, _, _ = h.setup(ctx)
	select {
	case <-c.tickets.got:
	case <-ctx.Done():
		return 0, 0, nil, ctx.Err()
	case <-time.After(c.cfg.HandshakeTimeout):
		return 0, 0, nil, fmt.Errorf("first connection: no session ticket within %v", c.cfg.HandshakeTimeout)
	}
	return handshake, fct, path, nil
}

// openWindow lets the server's remembered window in: the measured
// connections get a receive buffer that holds it (what sets the window a
// Linux client advertises first: a route's initrwnd only lowers it, see
// tcp_select_initial_window), and the route to the server the matching
// initrwnd (what raised it on kernels before 4.19, whose default first
// window was 10 segments). It records both in p.
func (c *connector) openWindow(p *results.PathState) error {
	rcvBuf, initRwnd := clientWindow(*p)
	server, err := netip.ParseAddrPort(c.addr)
	if err != nil {
		return fmt.Errorf("server address %q: %w", c.addr, err)
	}
	undo, err := setRouteWindow(server.Addr(), 0, initRwnd)
	if err != nil {
		return err
	}
	c.undoRoute = undo
	c.rcvBuf.Store(rcvBuf)
	p.InitRwnd, p.RcvBuf = initRwnd, rcvBuf
	return nil
}

// congestion is the congestion control of the client's side.
func (c *connector) congestion() string {
	if c.cfg.Proto == ProtoQUIC {
		return c.cfg.CC
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cc
}

// close releases the transports; it waits for the qlog files of the
// connections, which must have been closed.
func (c *connector) close() error {
	var errs []error
	if c.htr != nil {
		c.htr.CloseIdleConnections()
	}
	if c.h3 != nil {
		errs = append(errs, c.h3.Close())
	}
	if c.tr != nil {
		c.tr.Close()
	}
	if c.udp != nil {
		c.udp.Close()
	}
	if c.qlogs != nil {
		errs = append(errs, c.qlogs.wait(clientCloseTimeout))
	}
	if c.closeKeys != nil {
		c.closeKeys()
	}
	if c.undoRoute != nil {
		errs = append(errs, c.undoRoute())
	}
	return errors.Join(errs...)
}

// ticketCache is a TLS session cache that says when it first got a
// ticket.
type ticketCache struct {
	tls.ClientSessionCache
	got  chan struct{}
	once sync.Once
}

func newTicketCache() *ticketCache {
	return &ticketCache{ClientSessionCache: tls.NewLRUClientSessionCache(16), got: make(chan struct{})}
}

func (t *ticketCache) Put(key string, cs *tls.ClientSessionState) {
	t.ClientSessionCache.Put(key, cs)
	if cs != nil {
		t.once.Do(func() { close(t.got) })
	}
}
