package endpoint

import (
	"strconv"
	"strings"
	"time"
)

// Flag names of `emu endpoint server|client`. The CLI defines its flags
// with these and ServerArgs/ClientArgs emit them, so the two cannot drift.
const (
	FlagImpl             = "impl"
	FlagProto            = "proto"
	FlagListen           = "listen"
	FlagCert             = "cert"
	FlagKey              = "key"
	FlagCC               = "cc"
	FlagQlog             = "qlog"
	FlagRoot             = "root"
	FlagSizes            = "sizes"
	FlagURL              = "url"
	FlagCA               = "ca"
	FlagSize             = "size"
	FlagDuration         = "duration"
	FlagRcvBuf           = "rcvbuf"
	FlagAckThresh        = "ack-thresh"
	FlagRecvLog          = "recv-log"
	FlagT0               = "t0"
	FlagInterval         = "interval"
	FlagHandshakeTimeout = "handshake-timeout"
	FlagIdleTimeout      = "idle-timeout"
	FlagKeyLog           = "keylog"
	FlagStampInterval    = "stamp-interval"
	FlagNotSentLowat     = "notsent-lowat"
	FlagOWDLog           = "owd-log"
	FlagMPTCP            = "mptcp"
	FlagTCPInfoLog       = "tcpinfo-log"
	FlagTCPInfoInterval  = "tcpinfo-interval"
	FlagResumeBDP        = "resume-bdp"
	FlagResumeCheck      = "resume-check"
)

// ServerArgs is the argument list (without the program name) that runs the
// server cfg describes: `emu endpoint server --impl ... `. Callbacks and
// Log are not part of it: the process reports on stdout and stderr.
func ServerArgs(cfg ServerConfig) []string {
	a := argList{"endpoint", "server"}
	a.str(FlagImpl, string(cfg.Impl))
	a.str(FlagProto, string(cfg.Proto))
	a.str(FlagListen, cfg.Listen)
	a.str(FlagCert, cfg.CertFile)
	a.str(FlagKey, cfg.KeyFile)
	a.str(FlagCC, cfg.CC)
	a.str(FlagQlog, cfg.QlogFile)
	a.str(FlagRoot, cfg.Root)
	a.str(FlagKeyLog, cfg.KeyLogFile)
	a.int(FlagStampInterval, cfg.StampInterval)
	a.int(FlagNotSentLowat, int64(cfg.NotSentLowat))
	if len(cfg.Sizes) > 0 {
		s := make([]string, len(cfg.Sizes))
		for i, n := range cfg.Sizes {
			s[i] = strconv.FormatInt(n, 10)
		}
		a.str(FlagSizes, strings.Join(s, ","))
	}
	a.flag(FlagMPTCP, cfg.MPTCP)
	a.str(FlagTCPInfoLog, cfg.TCPInfoLog)
	a.dur(FlagTCPInfoInterval, cfg.TCPInfoInterval)
	a.unixNano(FlagT0, cfg.T0)
	a.flag(FlagResumeBDP, cfg.ResumeBDP)
	a.flag(FlagResumeCheck, cfg.ResumeCheck)
	a.serverWork(cfg.Work)
	return a
}

// ClientArgs is the argument list (without the program name) that runs the
// download cfg describes: `emu endpoint client --impl ...`.
func ClientArgs(cfg ClientConfig) []string {
	a := argList{"endpoint", "client"}
	a.str(FlagImpl, string(cfg.Impl))
	a.str(FlagProto, string(cfg.Proto))
	a.str(FlagURL, cfg.URL)
	a.str(FlagCA, cfg.CAFile)
	a.int(FlagSize, cfg.Size)
	a.dur(FlagDuration, cfg.Duration)
	a.str(FlagCC, cfg.CC)
	a.flag(FlagMPTCP, cfg.MPTCP)
	a.str(FlagRcvBuf, string(cfg.RcvBuf))
	a.int(FlagAckThresh, int64(cfg.AckThresh))
	a.str(FlagQlog, cfg.QlogFile)
	a.str(FlagRecvLog, cfg.RecvLog)
	a.str(FlagOWDLog, cfg.OWDLog)
	a.str(FlagKeyLog, cfg.KeyLogFile)
	a.unixNano(FlagT0, cfg.T0)
	a.dur(FlagInterval, cfg.Interval)
	a.dur(FlagHandshakeTimeout, cfg.HandshakeTimeout)
	a.dur(FlagIdleTimeout, cfg.IdleTimeout)
	a.work(cfg.Work)
	return a
}

type argList []string

func (a *argList) str(flag, v string) {
	if v != "" {
		*a = append(*a, "--"+flag+"="+v)
	}
}

func (a *argList) int(flag string, v int64) {
	if v != 0 {
		a.str(flag, strconv.FormatInt(v, 10))
	}
}

func (a *argList) flag(flag string, on bool) {
	if on {
		*a = append(*a, "--"+flag)
	}
}

func (a *argList) dur(flag string, d time.Duration) {
	if d != 0 {
		a.str(flag, d.String())
	}
}

// unixNano passes t as Unix nanoseconds; the zero time is left out.
func (a *argList) unixNano(flag string, t time.Time) {
	if !t.IsZero() {
		a.str(flag, strconv.FormatInt(t.UnixNano(), 10))
	}
}
