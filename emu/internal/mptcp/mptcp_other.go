//go:build !linux

package mptcp

import (
	"errors"
	"net/netip"
	"syscall"
)

var errNotLinux = errors.New("mptcp: Multipath TCP needs Linux")

// ErrNotMPTCP is returned for a socket that is not an MPTCP socket.
var ErrNotMPTCP = errors.New("not an MPTCP socket")

// PM fails everywhere but Linux.
type PM struct{}

// OpenPM fails: the path manager is a Linux facility.
func OpenPM(nsFd int) (*PM, error)                     { return nil, errNotLinux }
func (p *PM) Close() error                             { return errNotLinux }
func (p *PM) AddEndpoint(e Endpoint) (Endpoint, error) { return Endpoint{}, errNotLinux }
func (p *PM) DeleteEndpoint(id uint8) error            { return errNotLinux }
func (p *PM) Endpoint(id uint8) (Endpoint, error)      { return Endpoint{}, errNotLinux }
func (p *PM) Endpoints() ([]Endpoint, error)           { return nil, errNotLinux }
func (p *PM) FlushEndpoints() error                    { return errNotLinux }
func (p *PM) SetLimits(l Limits) error                 { return errNotLinux }
func (p *PM) Limits() (Limits, error)                  { return Limits{}, errNotLinux }
func Probe(nsFd int) (Kernel, error)                   { return Kernel{}, errNotLinux }
func SetScheduler(nsFd int, name string) error         { return errNotLinux }
func ReadInfo(rc syscall.RawConn) (Info, error)        { return Info{}, errNotLinux }

// Snapshot is one reading of an MPTCP connection.
type Snapshot struct {
	Info     Info
	Subflows []Subflow
}

// Reader fails everywhere but Linux.
type Reader struct{}

// NewReader returns a Reader whose Read fails.
func NewReader(rc syscall.RawConn, maxSubflows int) *Reader { return &Reader{} }
func (r *Reader) Read() (Snapshot, error)                   { return Snapshot{}, errNotLinux }

// Diag fails everywhere but Linux.
type Diag struct{}

// OpenDiag fails: sock_diag is a Linux facility.
func OpenDiag(nsFd int) (*Diag, error)                                  { return nil, errNotLinux }
func (d *Diag) Close() error                                            { return errNotLinux }
func (d *Diag) Congestion(local, remote netip.AddrPort) (string, error) { return "", errNotLinux }

// FallbackReason cannot tell anything outside Linux.
func FallbackReason() string { return "reason unknown (not Linux)" }

// IsMPTCPSocket fails: MPTCP is a Linux facility.
func IsMPTCPSocket(rc syscall.RawConn) (bool, error) { return false, errNotLinux }

// BPFSchedulers fails: MPTCP is a Linux facility.
func BPFSchedulers() (bool, error) { return false, errNotLinux }
