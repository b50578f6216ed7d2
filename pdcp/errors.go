package pdcp

import (
	"errors"
	"fmt"
)

// Errors of Encap and Decap. They are sentinel values so the proxies can
// count them and apply the rule in the package documentation:
//
//   - transmit side: a packet Encap rejects, for any reason, is sent
//     unchanged on link 0 and counted (Sender does both);
//   - receive side: a packet that does not claim to be a PDU (ErrNotIP,
//     ErrNotPDCP; see IsForeign) is passed unchanged and counted as foreign;
//     a packet that claims to be one but is malformed (ErrShort, ErrLength,
//     ErrNoSN) is dropped and counted as malformed.
var (
	// ErrNotIP: the version nibble is neither 4 nor 6, or the packet is empty.
	ErrNotIP = errors.New("pdcp: not an IPv4 or IPv6 packet")
	// ErrShort: the packet ends before its headers (or the length its IP
	// header declares) do.
	ErrShort = errors.New("pdcp: packet too short")
	// ErrLength: the IP header's length fields are inconsistent with the
	// packet (header length below the minimum, bytes after the declared end,
	// an IPv6 jumbogram).
	ErrLength = errors.New("pdcp: IP length field does not match the packet")
	// ErrChecksum: the IPv4 header checksum is wrong (Encap refuses it so
	// that Decap restores every packet byte for byte; the kernel drops such
	// packets before a queue sees them anyway).
	ErrChecksum = errors.New("pdcp: bad IPv4 header checksum")
	// ErrEncapsulated: the packet already carries the shim (protocol 253).
	ErrEncapsulated = errors.New("pdcp: packet already carries a PDCP header")
	// ErrTooBig: the packet plus the shim would exceed the IP length field.
	ErrTooBig = errors.New("pdcp: packet too big for the PDCP header")
	// ErrNotPDCP: a valid IP packet whose protocol is not the shim's (253).
	ErrNotPDCP = errors.New("pdcp: not a PDCP PDU")
	// ErrNoSN: the shim holds a control PDU (D/C bit 0), which has no SN.
	ErrNoSN = errors.New("pdcp: PDU carries no sequence number")
	// ErrSNBits: the SN length is neither 12 nor 18 bits (a configuration
	// error, not a property of the packet).
	ErrSNBits = errors.New("pdcp: SN length must be 12 or 18 bits")
)

// IsForeign reports whether a Decap error means the packet is not PDCP
// traffic at all, so the receive proxy passes it unchanged (and counts it as
// foreign). Any other Decap error means a malformed PDU: drop it.
func IsForeign(err error) bool {
	return errors.Is(err, ErrNotIP) || errors.Is(err, ErrNotPDCP)
}

// FieldError is a configuration value out of its range. Field is the Go
// name of the field or parameter (SchedulerConfig's "Batch", NewReceiver's
// "TReordering"), not a user-facing key: pdcp knows nothing of keys, and
// whoever maps settings onto its configuration (emu/config) names its own
// key for the field. Value is the value as text.
type FieldError struct {
	Field, Value string
	Err          error
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("pdcp: %s: %v (got %s)", e.Field, e.Err, e.Value)
}
func (e *FieldError) Unwrap() error { return e.Err }

// snBitsRange is what CheckSNBits says of a length: the range, as a
// configuration check says it, and ErrSNBits to errors.Is.
type snBitsRange struct{}

func (snBitsRange) Error() string        { return "must be 12 or 18" }
func (snBitsRange) Is(target error) bool { return target == ErrSNBits }
