package endpoint

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dc-emu/emu/emu/workload"
)

// Impl names an endpoint implementation.
type Impl string

const (
	// ImplQuicGo is quic-go's HTTP/3 client or server, in this process.
	ImplQuicGo Impl = "quic-go"
	// ImplNgtcp2 is Debian's gtlsclient or gtlsserver run as a child process.
	ImplNgtcp2 Impl = "ngtcp2"
	// ImplGo is Go's net/http speaking HTTP/2 over TLS 1.3 over TCP.
	ImplGo Impl = "go"
)

// Proto is the transport a flow uses.
type Proto string

const (
	ProtoQUIC Proto = "quic"
	ProtoTCP  Proto = "tcp"
)

// MaxAckThresh is the largest ACK threshold a client takes: beyond it a
// receiver would acknowledge on its max_ack_delay timer alone at any rate
// a run reaches, and the sender's congestion window would have to cover a
// thousand packets between ACKs.
const MaxAckThresh = 1000

// RcvBuf chooses the receive-side buffering of a QUIC client (see the
// package documentation for exactly what each value sets).
type RcvBuf string

const (
	RcvBufDefault RcvBuf = "default"
	RcvBufLarge   RcvBuf = "large"
)

// CCNewReno is the congestion controller quic-go always uses.
const CCNewReno = "newreno"

// UnboundedSize is the size duration-limited flows request: large enough
// that no emulated link finishes it (1 TiB), small enough for a sparse file.
const UnboundedSize int64 = 1 << 40

// Defaults applied by the zero values of the configurations.
const (
	DefaultInterval         = 100 * time.Millisecond
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultIdleTimeout      = 10 * time.Second
)

// ServerConfig describes one server.
type ServerConfig struct {
	// Impl is ImplQuicGo or ImplNgtcp2 for QUIC, ImplGo for TCP; empty
	// picks quic-go for QUIC and go for TCP.
	Impl  Impl
	Proto Proto
	// Listen is IP:PORT; port 0 picks a free port (reported through Ready).
	Listen string
	// CertFile and KeyFile are PEM files, e.g. from WriteSelfSigned.
	CertFile, KeyFile string
	// CC is the congestion controller (see the package documentation);
	// empty means the implementation's default.
	CC string
	// QlogFile receives the qlog of the first QUIC connection; later
	// connections get numbered names. Empty disables qlog. Ignored for TCP.
	QlogFile string
	// KeyLogFile, if set, receives the TLS secrets of every connection
	// in SSLKEYLOGFILE format (what Wireshark's tls.keylog_file reads), so
	// captures of the server's traffic can be decrypted. All three servers
	// write it (ngtcp2's through GnuTLS's SSLKEYLOGFILE).
	KeyLogFile string
	// StampInterval is the distance in bytes between the send stamps of a
	// /bytes/N body (see the package documentation): zero means
	// DefaultStampInterval, NoStamps sends plain bodies, otherwise
	// StampSize..MaxStampInterval. The ngtcp2 server never stamps (its
	// bodies are sparse files), so its clients get no one-way delays.
	StampInterval int64
	// NotSentLowat is TCP_NOTSENT_LOWAT of the TCP server's sockets: at
	// most about this many bytes wait unsent in the kernel, so a stamp's
	// write time is close to the time it leaves. Zero means
	// DefaultNotSentLowat, NoLowat leaves the kernel default (no limit).
	// Ignored for QUIC.
	NotSentLowat int
	// Root serves files below it for paths other than /bytes/N; empty
	// means only /bytes/N exists.
	Root string
	// Sizes lists the N of /bytes/N the ngtcp2 server must be able to
	// serve besides UnboundedSize (Go servers serve any N).
	Sizes []int64
	// Ready is called once with the listening address.
	Ready func(addr string)
	// OnConn is called for every accepted connection (Go servers only).
	OnConn func(ConnInfo)
	// Log receives child-process output and warnings; nil discards them.
	Log io.Writer
	// MPTCP makes the Go TCP server listen with Multipath TCP; a
	// connection that is not MPTCP once accepted is closed and reported
	// with ConnInfo.Error.
	MPTCP bool
	// TCPInfoLog, if set, receives the TCP_INFO samples of the first
	// connection to the Go TCP server (results.TCPInfoHeader rows, one per
	// subflow for MPTCP); later connections get numbered names like qlog.
	TCPInfoLog string
	// TCPInfoInterval is the sampling interval; zero means
	// DefaultTCPInfoInterval.
	TCPInfoInterval time.Duration
	// T0 is the origin of the TCP_INFO log's times; zero means the
	// server's start.
	T0 time.Time
	// Work is what the server does for clients other than downloads: it
	// receives uploads and cbr datagrams, and sends cbr datagrams
	// (kind.go, cbr.go).
	Work ServerWork
	// ResumeBDP makes the TCP server measure the path of a client's first
	// connection when the client asks (GET /pathstate) and start the
	// client's later connections with it: a route's initcwnd and a pacing
	// cap for their first round trip (bdp.go). It sets routes in the
	// server's network namespace, so the server must run as root there.
	// ResumeCheck falls back to a normal start when a connection's first
	// round trip is acknowledged at under half the remembered rate.
	ResumeBDP, ResumeCheck bool
}

// ConnInfo describes an accepted connection.
type ConnInfo struct {
	Remote string
	// CC is the congestion controller in effect on the connection.
	CC string
	// MPTCP: the server listens with Multipath TCP.
	MPTCP bool
	// Error, if set, is why the server closed the connection at once (an
	// MPTCP server's connection that fell back to plain TCP).
	Error string
}

// ClientConfig describes one download.
type ClientConfig struct {
	// Impl is ImplQuicGo or ImplNgtcp2 for QUIC, ImplGo for TCP; empty
	// picks quic-go for QUIC and go for TCP.
	Impl  Impl
	Proto Proto
	// URL is https://IP:PORT/path, typically BytesURL(addr, n).
	URL string
	// CAFile is the PEM certificate the server's certificate must chain to.
	CAFile string
	// Size is the number of body bytes expected; 0 takes N from a
	// /bytes/N URL, else the response's Content-Length.
	Size int64
	// Duration > 0 makes the download duration-limited: it stops after
	// Duration and counts only the bytes that arrived within it.
	Duration time.Duration
	// CC is the congestion controller of the client's socket or stack.
	CC string
	// MPTCP makes the TCP client connect with Multipath TCP and fail with
	// ErrMPTCPFallback if the connection is or becomes plain TCP.
	MPTCP bool
	// RcvBuf applies to QUIC clients; empty means RcvBufDefault.
	RcvBuf RcvBuf
	// AckThresh is how many ack-eliciting packets the ngtcp2 client takes
	// before it acknowledges at once (gtlsclient --ack-thresh; RFC 9000
	// §13.2 leaves the number to the receiver); 0 leaves gtlsclient's
	// default, 2. Only the ngtcp2 client honours it: quic-go has no such
	// knob (quic-go issue #2482) and kernel TCP's delayed ACKs are the
	// kernel's, so Check refuses it for them.
	AckThresh int
	// QlogFile receives the client's qlog (QUIC only); empty disables it.
	QlogFile string
	// RecvLog, if set, receives "t_s,bytes" CSV rows.
	RecvLog string
	// OWDLog, if set, receives the one-way delay of every send stamp in
	// the body (results.OWDHeader rows). The Go clients measure one-way
	// delays whether or not it is set (Result.OWD); the ngtcp2 client
	// does not read the body and has none.
	OWDLog string
	// KeyLogFile, if set, receives the connection's TLS secrets in
	// SSLKEYLOGFILE format (all three clients).
	KeyLogFile string
	// T0 is the origin of the times reported; zero means the start of
	// Download.
	T0 time.Time
	// Interval between progress reports; zero means DefaultInterval.
	Interval time.Duration
	// HandshakeTimeout bounds connection set-up (QUIC handshake, or TCP
	// connect plus TLS); zero means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// IdleTimeout fails the download when nothing arrives for this long
	// after the handshake; zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Log receives child-process output and warnings; nil discards them.
	Log io.Writer
	// Work is the client's kind and its parameters; the zero value is a
	// bulk download (kind.go).
	Work Workload
}

// resolveImpl fills the default implementation of a protocol and checks
// that the pair exists.
func resolveImpl(impl Impl, proto Proto) (Impl, error) {
	switch proto {
	case ProtoQUIC:
		switch impl {
		case "":
			return ImplQuicGo, nil
		case ImplQuicGo, ImplNgtcp2:
			return impl, nil
		}
		return "", fmt.Errorf("impl %q: QUIC endpoints are %q or %q", impl, ImplQuicGo, ImplNgtcp2)
	case ProtoTCP:
		switch impl {
		case "", ImplGo:
			return ImplGo, nil
		}
		return "", fmt.Errorf("impl %q: the TCP endpoint is %q (net/http, HTTP/2 over TLS 1.3)", impl, ImplGo)
	case ProtoUDP:
		if impl == "" || impl == ImplGo {
			return ImplGo, nil
		}
		return "", fmt.Errorf("impl %q: the UDP (cbr) endpoint is %q", impl, ImplGo)
	}
	return "", fmt.Errorf("proto %q: want %q, %q or %q", proto, ProtoQUIC, ProtoTCP, ProtoUDP)
}

// resolveCC fills the implementation's default controller and rejects what
// the implementation cannot do. TCP names are checked by the kernel later.
func resolveCC(impl Impl, cc string) (string, error) {
	switch impl {
	case ImplQuicGo:
		if cc == "" || cc == CCNewReno {
			return CCNewReno, nil
		}
		return "", fmt.Errorf("cc %q: quic-go's congestion control is hard-wired NewReno; use %q", cc, CCNewReno)
	case ImplNgtcp2:
		switch cc { // what gtlsserver and gtlsclient 0.12.1 accept
		case "":
			return "cubic", nil
		case "cubic", "reno", "bbr", "bbr2":
			return cc, nil
		}
		return "", fmt.Errorf("cc %q: ngtcp2 accepts cubic, reno, bbr, bbr2", cc)
	}
	if strings.ContainsAny(cc, " \t\x00/") || len(cc) >= 16 {
		return "", fmt.Errorf("cc %q: not a kernel congestion control name", cc)
	}
	return cc, nil
}

// resolveStack fills in the implementation proto defaults to and the
// congestion control that implementation defaults to, checking both.
func resolveStack(impl *Impl, proto Proto, cc *string) error {
	i, err := resolveImpl(*impl, proto)
	if err != nil {
		return err
	}
	*impl = i
	*cc, err = resolveCC(i, *cc)
	return err
}

func (c *ServerConfig) validate() error {
	if err := resolveStack(&c.Impl, c.Proto, &c.CC); err != nil {
		return err
	}
	if _, err := netip.ParseAddrPort(c.Listen); err != nil {
		return fmt.Errorf("listen %q: want IP:PORT: %w", c.Listen, err)
	}
	if err := c.Work.validate(c); err != nil {
		return err
	}
	if c.Proto == ProtoUDP {
		if c.Log == nil {
			c.Log = io.Discard
		}
		return nil
	}
	if err := readable("cert", c.CertFile); err != nil {
		return err
	}
	if err := readable("key", c.KeyFile); err != nil {
		return err
	}
	if c.Root != "" {
		st, err := os.Stat(c.Root)
		if err != nil {
			return fmt.Errorf("root: %w", err)
		}
		if !st.IsDir() {
			return fmt.Errorf("root %s: not a directory", c.Root)
		}
	}
	switch {
	case c.StampInterval == 0:
		c.StampInterval = DefaultStampInterval
	case c.StampInterval == NoStamps:
	case c.StampInterval < StampSize || c.StampInterval > MaxStampInterval:
		return fmt.Errorf("stamp interval %d: want %d..%d bytes, or %d for no stamps", c.StampInterval, StampSize, MaxStampInterval, NoStamps)
	}
	switch {
	case c.NotSentLowat == 0:
		c.NotSentLowat = DefaultNotSentLowat
	case c.NotSentLowat == NoLowat:
	case c.NotSentLowat < 0:
		return fmt.Errorf("notsent lowat %d: want bytes > 0, or %d for the kernel default", c.NotSentLowat, NoLowat)
	}
	for _, n := range c.Sizes {
		if n < 0 || n > UnboundedSize {
			return fmt.Errorf("sizes: %d out of range [0, %d]", n, UnboundedSize)
		}
	}
	if (c.ResumeBDP || c.ResumeCheck) && (c.Impl != ImplGo || c.MPTCP) {
		return fmt.Errorf("resume bdp: only the plain TCP server (%q, no mptcp) has it", ImplGo)
	}
	resume := workload.ResumeOff
	if c.ResumeBDP {
		resume = workload.ResumeBDP
	}
	if err := workload.CheckResumeCheck(resume, c.ResumeCheck); err != nil {
		return fmt.Errorf("resume check: %w (resume bdp)", err)
	}
	if (c.MPTCP || c.TCPInfoLog != "") && c.Impl != ImplGo {
		return fmt.Errorf("mptcp and tcpinfo-log: only the TCP server (%q) has them", ImplGo)
	}
	if c.TCPInfoInterval == 0 {
		c.TCPInfoInterval = DefaultTCPInfoInterval
	}
	if c.TCPInfoInterval < time.Millisecond {
		return fmt.Errorf("tcpinfo-interval %v: want at least 1ms", c.TCPInfoInterval)
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return nil
}

func (c *ClientConfig) validate() error {
	if err := resolveStack(&c.Impl, c.Proto, &c.CC); err != nil {
		return err
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return fmt.Errorf("url: %w", err)
	}
	scheme := "https"
	if c.Proto == ProtoUDP {
		scheme = "udp"
	}
	if u.Scheme != scheme || u.Host == "" {
		return fmt.Errorf("url %q: want %s://HOST:PORT/path", c.URL, scheme)
	}
	if u.Port() == "" {
		return fmt.Errorf("url %q: no port", c.URL)
	}
	if c.Proto != ProtoUDP {
		if err := readable("ca", c.CAFile); err != nil {
			return err
		}
	}
	if c.Size < 0 {
		return fmt.Errorf("size %d: negative", c.Size)
	}
	if c.Size == 0 {
		if n, ok := bytesPathSize(u.Path); ok {
			c.Size = n
		}
	}
	if c.Duration < 0 {
		return fmt.Errorf("duration %v: negative", c.Duration)
	}
	if c.MPTCP && c.Impl != ImplGo {
		return fmt.Errorf("mptcp: only the TCP client (%q) has it", ImplGo)
	}
	if err := c.Work.validate(c); err != nil {
		return err
	}
	switch {
	case c.AckThresh < 0 || c.AckThresh > MaxAckThresh:
		return fmt.Errorf("ack-thresh %d: want 1 to %d", c.AckThresh, MaxAckThresh)
	case c.AckThresh > 0 && c.Impl != ImplNgtcp2:
		return fmt.Errorf("ack-thresh %d: only the ngtcp2 client takes an ACK threshold, not %s", c.AckThresh, c.Impl)
	}
	switch c.RcvBuf {
	case "":
		c.RcvBuf = RcvBufDefault
	case RcvBufDefault, RcvBufLarge:
	default:
		return fmt.Errorf("rcvbuf %q: want %q or %q", c.RcvBuf, RcvBufDefault, RcvBufLarge)
	}
	if c.Interval == 0 {
		c.Interval = DefaultInterval
	}
	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.Interval < 0 || c.HandshakeTimeout < 0 || c.IdleTimeout < 0 {
		return errors.New("interval and timeouts must be positive")
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return nil
}

func readable(what, path string) error {
	if path == "" {
		return fmt.Errorf("%s: no file given", what)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return f.Close()
}

// BytesURL is the URL of n bytes on the server at addr (IP:PORT).
func BytesURL(addr string, n int64) string {
	return "https://" + addr + "/bytes/" + strconv.FormatInt(n, 10)
}

// bytesPathSize parses /bytes/N: decimal digits only, no sign, no leading
// zeros except "0" itself, at most UnboundedSize.
func bytesPathSize(path string) (int64, bool) {
	s, ok := strings.CutPrefix(path, "/bytes/")
	if !ok || s == "" || len(s) > 19 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > UnboundedSize {
		return 0, false
	}
	return n, true
}

// Check reports what is wrong with c without changing it: the checks Serve
// makes before starting, so a caller can reject a configuration early.
func (c ServerConfig) Check() error { return c.validate() }

// Check reports what is wrong with c without changing it: the checks
// Download makes before starting.
func (c ClientConfig) Check() error { return c.validate() }
