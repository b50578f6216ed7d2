package cli

import (
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dc-emu/emu/emu/endpoint"
)

// bindTransport binds the flags both ends of a flow take alike: the
// implementation, the protocol and the congestion control.
func bindTransport(fs *pflag.FlagSet, impl, proto, cc *string) {
	fs.StringVar(impl, endpoint.FlagImpl, "", "quic-go or ngtcp2 (QUIC), go (TCP); default by --proto")
	fs.StringVar(proto, endpoint.FlagProto, "", "quic or tcp (required)")
	fs.StringVar(cc, endpoint.FlagCC, "", "congestion control: newreno (quic-go), cubic|reno|bbr|bbr2 (ngtcp2), a kernel name (tcp)")
}

type serverFlags struct {
	impl, proto, listen, cert, key, cc, qlog, root, sizes, keylog string
	mptcp, resumeBDP, resumeCheck                                 bool
	tcpinfoLog                                                    string
	tcpinfoInterval                                               time.Duration
	t0, stampInterval                                             int64
	lowat                                                         int
	work                                                          serverWorkFlags
}

func (f *serverFlags) bind(fs *pflag.FlagSet) {
	bindTransport(fs, &f.impl, &f.proto, &f.cc)
	fs.StringVar(&f.listen, endpoint.FlagListen, "", "IP:PORT to listen on; port 0 picks one (required)")
	fs.StringVar(&f.cert, endpoint.FlagCert, "", "PEM certificate (required)")
	fs.StringVar(&f.key, endpoint.FlagKey, "", "PEM private key (required)")
	fs.StringVar(&f.qlog, endpoint.FlagQlog, "", "qlog file of the first QUIC connection")
	fs.StringVar(&f.root, endpoint.FlagRoot, "", "directory of files to serve besides /bytes/N")
	fs.StringVar(&f.sizes, endpoint.FlagSizes, "", "comma-separated N of /bytes/N the ngtcp2 server must serve")
	fs.StringVar(&f.keylog, endpoint.FlagKeyLog, "", "append the TLS secrets of every connection to this file (SSLKEYLOGFILE format)")
	fs.Int64Var(&f.stampInterval, endpoint.FlagStampInterval, 0, "bytes between the send stamps of /bytes/N (default 65536; -1: no stamps; Go servers only)")
	fs.IntVar(&f.lowat, endpoint.FlagNotSentLowat, 0, "TCP_NOTSENT_LOWAT of the TCP server's sockets in bytes (default 16384; -1: the kernel's)")
	fs.BoolVar(&f.mptcp, endpoint.FlagMPTCP, false, "listen with Multipath TCP (go server)")
	fs.StringVar(&f.tcpinfoLog, endpoint.FlagTCPInfoLog, "", "CSV file of TCP_INFO samples per connection (go server)")
	fs.DurationVar(&f.tcpinfoInterval, endpoint.FlagTCPInfoInterval, 0, "TCP_INFO sampling interval (0: 10ms)")
	fs.Int64Var(&f.t0, endpoint.FlagT0, 0, "origin of logged times, Unix nanoseconds (default: start)")
	fs.BoolVar(&f.resumeBDP, endpoint.FlagResumeBDP, false, "measure a client's first connection on GET /pathstate and start its later ones with that window and pacing rate (go server, as root)")
	fs.BoolVar(&f.resumeCheck, endpoint.FlagResumeCheck, false, "with --resume-bdp: fall back to a normal start when the first round trip is acknowledged at under half the remembered rate")
	f.work.bind(fs)
}

func (f *serverFlags) config() (endpoint.ServerConfig, error) {
	cfg := endpoint.ServerConfig{
		Impl: endpoint.Impl(f.impl), Proto: endpoint.Proto(f.proto), Listen: f.listen,
		CertFile: f.cert, KeyFile: f.key, CC: f.cc, QlogFile: f.qlog, Root: f.root,
		KeyLogFile: f.keylog, StampInterval: f.stampInterval, NotSentLowat: f.lowat,
		MPTCP: f.mptcp, TCPInfoLog: f.tcpinfoLog, TCPInfoInterval: f.tcpinfoInterval, Work: f.work.work(),
		ResumeBDP: f.resumeBDP, ResumeCheck: f.resumeCheck,
	}
	var err error
	if cfg.T0, err = parseT0("server", f.t0); err != nil {
		return cfg, err
	}
	if f.sizes != "" {
		for _, s := range strings.Split(f.sizes, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil {
				return cfg, usagef("emu endpoint server: --%s %q: %v", endpoint.FlagSizes, f.sizes, err)
			}
			cfg.Sizes = append(cfg.Sizes, n)
		}
	}
	if err := cfg.Check(); err != nil {
		return cfg, usagef("emu endpoint server: %v", err)
	}
	return cfg, nil
}

type clientFlags struct {
	mptcp                                                           bool
	impl, proto, url, ca, cc, rcvbuf, qlog, recvLog, owdLog, keylog string
	size, t0                                                        int64
	duration, interval, handshake, idle                             time.Duration
	work                                                            workFlags
}

func (f *clientFlags) bind(fs *pflag.FlagSet) {
	bindTransport(fs, &f.impl, &f.proto, &f.cc)
	fs.StringVar(&f.url, endpoint.FlagURL, "", "https://IP:PORT/bytes/N (required)")
	fs.StringVar(&f.ca, endpoint.FlagCA, "", "PEM certificate the server's must chain to (required)")
	fs.Int64Var(&f.size, endpoint.FlagSize, 0, "expected body bytes (default: N of /bytes/N, else Content-Length)")
	fs.DurationVar(&f.duration, endpoint.FlagDuration, 0, "stop after this long and count the bytes received within it")
	fs.StringVar(&f.rcvbuf, endpoint.FlagRcvBuf, "", "QUIC receive buffer: default or large")
	fs.BoolVar(&f.mptcp, endpoint.FlagMPTCP, false, "connect with Multipath TCP and fail if it falls back (tcp)")
	fs.StringVar(&f.qlog, endpoint.FlagQlog, "", "qlog file (QUIC)")
	fs.StringVar(&f.recvLog, endpoint.FlagRecvLog, "", "CSV file of t_s,bytes for every read")
	fs.StringVar(&f.owdLog, endpoint.FlagOWDLog, "", "CSV file of t_s,offset,owd_ms for every send stamp read (Go clients)")
	fs.StringVar(&f.keylog, endpoint.FlagKeyLog, "", "append the connection's TLS secrets to this file (SSLKEYLOGFILE format)")
	fs.Int64Var(&f.t0, endpoint.FlagT0, 0, "origin of reported times, Unix nanoseconds (default: start)")
	fs.DurationVar(&f.interval, endpoint.FlagInterval, endpoint.DefaultInterval, "progress interval")
	fs.DurationVar(&f.handshake, endpoint.FlagHandshakeTimeout, endpoint.DefaultHandshakeTimeout, "connection set-up timeout")
	fs.DurationVar(&f.idle, endpoint.FlagIdleTimeout, endpoint.DefaultIdleTimeout, "fail when nothing arrives for this long")
	f.work.bind(fs)
}

func (f *clientFlags) config() (endpoint.ClientConfig, error) {
	cfg := endpoint.ClientConfig{
		Impl: endpoint.Impl(f.impl), Proto: endpoint.Proto(f.proto), URL: f.url, CAFile: f.ca,
		Size: f.size, Duration: f.duration, CC: f.cc, RcvBuf: endpoint.RcvBuf(f.rcvbuf),
		QlogFile: f.qlog, RecvLog: f.recvLog, OWDLog: f.owdLog, KeyLogFile: f.keylog, Interval: f.interval,
		HandshakeTimeout: f.handshake, IdleTimeout: f.idle, MPTCP: f.mptcp, Work: f.work.workload(),
	}
	var err error
	if cfg.T0, err = parseT0("client", f.t0); err != nil {
		return cfg, err
	}
	if err := cfg.Check(); err != nil {
		return cfg, usagef("emu endpoint client: %v", err)
	}
	return cfg, nil
}

// parseT0 reads --t0 of emu endpoint side: the origin of the endpoint's
// times in Unix nanoseconds, 0 for its start (the zero time).
func parseT0(side string, ns int64) (time.Time, error) {
	switch {
	case ns < 0:
		return time.Time{}, usagef("emu endpoint %s: --%s %d: negative", side, endpoint.FlagT0, ns)
	case ns == 0:
		return time.Time{}, nil
	}
	return time.Unix(0, ns), nil
}
