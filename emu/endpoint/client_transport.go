package endpoint

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"syscall"

	"github.com/quic-go/quic-go"
)

// The sockets and transports of the Go clients, shared by the plain
// download (downloadQuicGo, downloadTCP) and the workloads' connector.

// quicSocket is a QUIC client's UDP socket towards one server and the
// quic-go Transport on it.
type quicSocket struct {
	raddr  *net.UDPAddr
	udp    *net.UDPConn
	tr     *quic.Transport
	rcvbuf int // the receive buffer as the kernel reports it
}

// openQUICSocket resolves the server's addr and opens a UDP socket of its
// family, with the receive buffer of mode (applyRcvBuf), and a Transport
// on it. On error nothing is left open.
func openQUICSocket(addr string, mode RcvBuf) (*quicSocket, error) {
	raddr, udp, err := udpSocketTo(addr)
	if err != nil {
		return nil, err
	}
	s := &quicSocket{raddr: raddr, udp: udp, tr: &quic.Transport{Conn: udp}}
	if s.rcvbuf, err = applyRcvBuf(udp, s.tr, mode); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *quicSocket) close() {
	s.tr.Close()
	s.udp.Close()
}

// quicConfig is a client's quic.Config: cfg's handshake and idle timeouts,
// the tracer of qlogs and, with RcvBufLarge, the large flow-control
// windows.
func quicConfig(cfg *ClientConfig, qlogs *qlogSink) *quic.Config {
	qc := &quic.Config{
		HandshakeIdleTimeout: cfg.HandshakeTimeout,
		MaxIdleTimeout:       cfg.IdleTimeout,
		Tracer:               qlogs.tracer(),
	}
	if cfg.RcvBuf == RcvBufLarge {
		qc.InitialStreamReceiveWindow = largeStreamWindow
		qc.MaxStreamReceiveWindow = largeStreamWindow
		qc.InitialConnectionReceiveWindow = largeConnWindow
		qc.MaxConnectionReceiveWindow = largeConnWindow
	}
	return qc
}

// ccDialer dials TCP with cfg.CC set on the socket before connect and,
// for an upload, TCP_NOTSENT_LOWAT (an upload's stamps wait behind at most
// that much unsent data).
func ccDialer(cfg *ClientConfig) *net.Dialer {
	return &net.Dialer{
		Timeout: cfg.HandshakeTimeout,
		Control: func(_, _ string, rc syscall.RawConn) error {
			var serr error
			if err := rc.Control(func(fd uintptr) {
				if _, serr = setCongestion(int(fd), cfg.CC); serr == nil && cfg.Work.Up {
					serr = setNotSentLowat(int(fd), DefaultNotSentLowat)
				}
			}); err != nil {
				return err
			}
			return serr
		},
	}
}

// h2Transport is a TCP client's HTTP/2 over TLS 1.3 transport, its
// connections made by dial.
func h2Transport(cfg *ClientConfig, tlsConf *tls.Config, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Transport {
	var protos http.Protocols
	protos.SetHTTP2(true)
	return &http.Transport{
		Protocols:           &protos,
		ForceAttemptHTTP2:   true,
		TLSClientConfig:     tlsConf,
		TLSHandshakeTimeout: cfg.HandshakeTimeout,
		DisableCompression:  true,
		HTTP2: &http.HTTP2Config{
			// HTTP/2 flow control must never bind before the kernel's
			// autotuned receive buffer (tcp_rmem max, 6 MiB by default):
			// the window net/http would use, 4 MiB, could cap a long-fat
			// path.
			MaxReceiveBufferPerStream:     tcpStreamWindow,
			MaxReceiveBufferPerConnection: tcpStreamWindow,
			// A dead peer whose kernel is gone too sends no FIN or RST.
			SendPingTimeout: cfg.IdleTimeout / 2,
			PingTimeout:     cfg.IdleTimeout / 2,
		},
		DialContext: dial,
	}
}
