package endpoint

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/dc-emu/emu/emu/internal/mptcp"
)

// ErrMPTCPFallback is the error of an MPTCP connection that fell back to
// plain TCP: the flow would silently measure single-path TCP.
var ErrMPTCPFallback = errors.New("MPTCP fell back to plain TCP")

// fallbackError is ErrMPTCPFallback with the reason.
type fallbackError struct{ why string }

func (e *fallbackError) Error() string        { return ErrMPTCPFallback.Error() + ": " + e.why }
func (e *fallbackError) Is(target error) bool { return target == ErrMPTCPFallback }

// checkMPTCP fails for a connection that is not (or no longer) MPTCP,
// saying why as far as the namespace's counters tell.
func checkMPTCP(c *net.TCPConn) error { return checkMPTCPSide(c, false) }

// checkAcceptedMPTCP is checkMPTCP for a server's accepted connection.
func checkAcceptedMPTCP(c *net.TCPConn) error { return checkMPTCPSide(c, true) }

func checkMPTCPSide(c *net.TCPConn, accepted bool) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	info, err := mptcp.ReadInfo(rc)
	switch {
	case errors.Is(err, mptcp.ErrNotMPTCP) && accepted:
		// An MPTCP listener hands out a plain TCP socket for a SYN
		// without MP_CAPABLE; no counter counts that.
		return &fallbackError{why: "the client's SYN carried no MP_CAPABLE (the client does not use MPTCP, or a middlebox stripped the option)"}
	case errors.Is(err, mptcp.ErrNotMPTCP), err == nil && info.Fallback():
		return &fallbackError{why: mptcp.FallbackReason()}
	case err != nil:
		return fmt.Errorf("MPTCP: %w", err)
	}
	return nil
}

// checkMPTCPListener fails if the listening socket is plain TCP (Go makes
// one without saying so when the kernel refuses MPTCP).
func checkMPTCPListener(ln net.Listener) error {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		return fmt.Errorf("MPTCP listener %s: no socket", ln.Addr())
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	is, err := mptcp.IsMPTCPSocket(rc)
	if err != nil {
		return fmt.Errorf("MPTCP listener %s: %w", ln.Addr(), err)
	}
	if !is {
		return fmt.Errorf("MPTCP listener %s is plain TCP: %s", ln.Addr(), mptcp.FallbackReason())
	}
	return nil
}
