package workload

import (
	"errors"
	"fmt"
)

// The resumption rules, stated once for the configuration (which names the
// key and its fix) and the endpoints (which check what they are told).

// CheckResume reports a resumption mode the flow cannot use: resume (""
// counts as off) applies to rr and objects flows, whose connections can be
// resumed; 0rtt needs QUIC's early data; bdp seeds a kernel TCP
// connection. proto is the flow's transport: "quic", "tcp" or "udp".
func CheckResume(kind, resume, proto string) error {
	switch resume {
	case "", ResumeOff:
		return nil
	case Resume1RTT, Resume0RTT, ResumeBDP:
	default:
		return fmt.Errorf("want off, 1rtt, 0rtt or bdp (got %q)", resume)
	}
	switch {
	case kind != KindRR && kind != KindObjects:
		return errors.New("applies to rr and objects flows, whose connections can be resumed (for a resumed download use kind=objects with one size)")
	case resume == Resume0RTT && proto != "quic":
		return errors.New("0rtt is QUIC's (Go's TLS over TCP has no early data); TCP resumes with 1rtt")
	case resume == ResumeBDP && proto != "tcp":
		return fmt.Errorf("bdp starts a kernel TCP connection with a remembered window (a route's initcwnd) and pacing rate (SO_MAX_PACING_RATE); "+
			"not for %s: quic-go has no API to seed a connection's congestion window or RTT, and Debian's ngtcp2 examples take an initial RTT but no window (and only download); use proto=tcp", proto)
	}
	return nil
}

// CheckResumeCheck reports the check of a resumed path state asked for
// without one: it needs resume bdp.
func CheckResumeCheck(resume string, check bool) error {
	if check && resume != ResumeBDP {
		return errors.New("checks a resumed path state")
	}
	return nil
}
