package endpoint

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// The parsing half of the argv codec whose writing half is ServerArgs and
// ClientArgs (args.go, kind_args.go): ServerFlags and ClientFlags bind the
// same flag names to a pflag.FlagSet and turn what was parsed back into a
// ServerConfig or ClientConfig, checked. `emu endpoint server|client`
// binds them; TestArgsRoundTrip holds the two halves together.

// bindTransport binds the flags both ends of a flow take alike: the
// implementation, the protocol and the congestion control.
func bindTransport(fs *pflag.FlagSet, impl, proto, cc *string) {
	fs.StringVar(impl, FlagImpl, "", "quic-go or ngtcp2 (QUIC), go (TCP); default by --proto")
	fs.StringVar(proto, FlagProto, "", "quic or tcp (required)")
	fs.StringVar(cc, FlagCC, "", "congestion control: newreno (quic-go), cubic|reno|bbr|bbr2 (ngtcp2), a kernel name (tcp)")
}

// ServerFlags are the flags of `emu endpoint server`.
type ServerFlags struct {
	impl, proto, listen, cert, key, cc, qlog, root, sizes, keylog string
	mptcp, resumeBDP, resumeCheck                                 bool
	tcpinfoLog                                                    string
	tcpinfoInterval                                               time.Duration
	t0, stampInterval                                             int64
	lowat                                                         int
	work                                                          serverWorkFlags
}

// Bind defines the flags on fs.
func (f *ServerFlags) Bind(fs *pflag.FlagSet) {
	bindTransport(fs, &f.impl, &f.proto, &f.cc)
	fs.StringVar(&f.listen, FlagListen, "", "IP:PORT to listen on; port 0 picks one (required)")
	fs.StringVar(&f.cert, FlagCert, "", "PEM certificate (required)")
	fs.StringVar(&f.key, FlagKey, "", "PEM private key (required)")
	fs.StringVar(&f.qlog, FlagQlog, "", "qlog file of the first QUIC connection")
	fs.StringVar(&f.root, FlagRoot, "", "directory of files to serve besides /bytes/N")
	fs.StringVar(&f.sizes, FlagSizes, "", "comma-separated N of /bytes/N the ngtcp2 server must serve")
	fs.StringVar(&f.keylog, FlagKeyLog, "", "append the TLS secrets of every connection to this file (SSLKEYLOGFILE format)")
	fs.Int64Var(&f.stampInterval, FlagStampInterval, 0, "bytes between the send stamps of /bytes/N (default 65536; -1: no stamps; Go servers only)")
	fs.IntVar(&f.lowat, FlagNotSentLowat, 0, "TCP_NOTSENT_LOWAT of the TCP server's sockets in bytes (default 16384; -1: the kernel's)")
	fs.BoolVar(&f.mptcp, FlagMPTCP, false, "listen with Multipath TCP (go server)")
	fs.StringVar(&f.tcpinfoLog, FlagTCPInfoLog, "", "CSV file of TCP_INFO samples per connection (go server)")
	fs.DurationVar(&f.tcpinfoInterval, FlagTCPInfoInterval, 0, "TCP_INFO sampling interval (0: 10ms)")
	fs.Int64Var(&f.t0, FlagT0, 0, "origin of logged times, Unix nanoseconds (default: start)")
	fs.BoolVar(&f.resumeBDP, FlagResumeBDP, false, "measure a client's first connection on GET /pathstate and start its later ones with that window and pacing rate (go server, as root)")
	fs.BoolVar(&f.resumeCheck, FlagResumeCheck, false, "with --resume-bdp: fall back to a normal start when the first round trip is acknowledged at under half the remembered rate")
	f.work.bind(fs)
}

// Config is the server the parsed flags describe, or why it is not one.
func (f *ServerFlags) Config() (ServerConfig, error) {
	cfg := ServerConfig{
		Impl: Impl(f.impl), Proto: Proto(f.proto), Listen: f.listen,
		CertFile: f.cert, KeyFile: f.key, CC: f.cc, QlogFile: f.qlog, Root: f.root,
		KeyLogFile: f.keylog, StampInterval: f.stampInterval, NotSentLowat: f.lowat,
		MPTCP: f.mptcp, TCPInfoLog: f.tcpinfoLog, TCPInfoInterval: f.tcpinfoInterval, Work: f.work.work(),
		ResumeBDP: f.resumeBDP, ResumeCheck: f.resumeCheck,
	}
	var err error
	if cfg.T0, err = parseT0(f.t0); err != nil {
		return cfg, err
	}
	if f.sizes != "" {
		for _, s := range strings.Split(f.sizes, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil {
				return cfg, fmt.Errorf("--%s %q: %v", FlagSizes, f.sizes, err)
			}
			cfg.Sizes = append(cfg.Sizes, n)
		}
	}
	if err := cfg.Check(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// ClientFlags are the flags of `emu endpoint client`.
type ClientFlags struct {
	mptcp                                                           bool
	impl, proto, url, ca, cc, rcvbuf, qlog, recvLog, owdLog, keylog string
	size, t0                                                        int64
	ackThresh                                                       int
	duration, interval, handshake, idle                             time.Duration
	work                                                            workFlags
}

// Bind defines the flags on fs.
func (f *ClientFlags) Bind(fs *pflag.FlagSet) {
	bindTransport(fs, &f.impl, &f.proto, &f.cc)
	fs.StringVar(&f.url, FlagURL, "", "https://IP:PORT/bytes/N (required)")
	fs.StringVar(&f.ca, FlagCA, "", "PEM certificate the server's must chain to (required)")
	fs.Int64Var(&f.size, FlagSize, 0, "expected body bytes (default: N of /bytes/N, else Content-Length)")
	fs.DurationVar(&f.duration, FlagDuration, 0, "stop after this long and count the bytes received within it")
	fs.StringVar(&f.rcvbuf, FlagRcvBuf, "", "QUIC receive buffer: default or large")
	fs.IntVar(&f.ackThresh, FlagAckThresh, 0, "ack-eliciting packets received before an immediate ACK (ngtcp2 only; default: its own, 2)")
	fs.BoolVar(&f.mptcp, FlagMPTCP, false, "connect with Multipath TCP and fail if it falls back (tcp)")
	fs.StringVar(&f.qlog, FlagQlog, "", "qlog file (QUIC)")
	fs.StringVar(&f.recvLog, FlagRecvLog, "", "CSV file of t_s,bytes for every read")
	fs.StringVar(&f.owdLog, FlagOWDLog, "", "CSV file of t_s,offset,owd_ms for every send stamp read (Go clients)")
	fs.StringVar(&f.keylog, FlagKeyLog, "", "append the connection's TLS secrets to this file (SSLKEYLOGFILE format)")
	fs.Int64Var(&f.t0, FlagT0, 0, "origin of reported times, Unix nanoseconds (default: start)")
	fs.DurationVar(&f.interval, FlagInterval, DefaultInterval, "progress interval")
	fs.DurationVar(&f.handshake, FlagHandshakeTimeout, DefaultHandshakeTimeout, "connection set-up timeout")
	fs.DurationVar(&f.idle, FlagIdleTimeout, DefaultIdleTimeout, "fail when nothing arrives for this long")
	f.work.bind(fs)
}

// Config is the client the parsed flags describe, or why it is not one.
func (f *ClientFlags) Config() (ClientConfig, error) {
	cfg := ClientConfig{
		Impl: Impl(f.impl), Proto: Proto(f.proto), URL: f.url, CAFile: f.ca,
		Size: f.size, Duration: f.duration, CC: f.cc, RcvBuf: RcvBuf(f.rcvbuf), AckThresh: f.ackThresh,
		QlogFile: f.qlog, RecvLog: f.recvLog, OWDLog: f.owdLog, KeyLogFile: f.keylog, Interval: f.interval,
		HandshakeTimeout: f.handshake, IdleTimeout: f.idle, MPTCP: f.mptcp, Work: f.work.workload(),
	}
	var err error
	if cfg.T0, err = parseT0(f.t0); err != nil {
		return cfg, err
	}
	if err := cfg.Check(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// parseT0 reads --t0: the origin of the endpoint's times in Unix
// nanoseconds, 0 for its start (the zero time).
func parseT0(ns int64) (time.Time, error) {
	switch {
	case ns < 0:
		return time.Time{}, fmt.Errorf("--%s %d: negative", FlagT0, ns)
	case ns == 0:
		return time.Time{}, nil
	}
	return time.Unix(0, ns), nil
}

// workFlags are the flags of an endpoint client's kind (Workload).
type workFlags struct {
	kind, objects, arrivals, resume, kindLog string
	up, newConns                             bool
	request, response                        int64
	every                                    time.Duration
	count, packet                            int
	seed                                     uint64
}

func (f *workFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.kind, FlagKind, "", "bulk (default), rr, cbr or objects")
	fs.BoolVar(&f.up, FlagUp, false, "the client sends (bulk, cbr)")
	fs.Int64Var(&f.request, FlagRequest, 0, "rr: request body bytes")
	fs.Int64Var(&f.response, FlagResponse, 0, "rr: response body bytes")
	fs.DurationVar(&f.every, FlagEvery, 0, "rr: time between transaction starts (0: back to back); cbr: between datagrams")
	fs.IntVar(&f.count, FlagCount, 0, "transactions, datagrams or objects (0: for --duration)")
	fs.IntVar(&f.packet, FlagPacket, 0, "cbr: UDP payload bytes")
	fs.StringVar(&f.objects, FlagObjects, "", "objects: sizes (500kB,1MB), fixed:S, exp:MEAN, lognormal:MEDIAN:SIGMA or csv:FILE")
	fs.StringVar(&f.arrivals, FlagArrivals, "", "objects: seq (default) or poisson:MEAN")
	fs.Uint64Var(&f.seed, FlagSeed, 0, "objects: seed of the sizes and arrivals drawn")
	fs.BoolVar(&f.newConns, FlagNewConns, false, "rr, objects: a new connection for each")
	fs.StringVar(&f.resume, FlagResume, "", "rr, objects: off, 1rtt, 0rtt or bdp")
	fs.StringVar(&f.kindLog, FlagKindLog, "", "the kind's per-flow log (rr transactions, cbr datagrams, objects)")
}

func (f *workFlags) workload() Workload {
	return Workload{
		Kind: Kind(f.kind), Up: f.up, Request: f.request, Response: f.response, Every: f.every,
		Count: f.count, Packet: f.packet, Objects: f.objects, Arrivals: f.arrivals, Seed: f.seed,
		NewConns: f.newConns, Resume: f.resume, KindLog: f.kindLog,
	}
}

// serverWorkFlags are a server's flags besides downloads (ServerWork).
type serverWorkFlags struct{ recvLog, owdLog, kindLog string }

func (f *serverWorkFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.recvLog, FlagRecvLog, "", "CSV file of t_s,bytes for every read of an upload")
	fs.StringVar(&f.owdLog, FlagOWDLog, "", "CSV file of the one-way delays of an upload's send stamps")
	fs.StringVar(&f.kindLog, FlagKindLog, "", "CSV file of the cbr datagrams an uploading client sent")
}

func (f *serverWorkFlags) work() ServerWork {
	return ServerWork{RecvLog: f.recvLog, OWDLog: f.owdLog, KindLog: f.kindLog}
}
