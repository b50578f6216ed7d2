package pdcp

import (
	"errors"
	"fmt"
)

// Errors of ParseHeader and of the configuration checks, sentinel values
// for errors.Is. A datagram ParseHeader refuses (ErrShort, ErrNoSN) carries
// no data PDU: the receiving proxy drops it and counts it as malformed
// (emu/dcproxy's Rx.Malformed).
var (
	// ErrShort: the datagram is shorter than the PDCP data PDU header.
	ErrShort = errors.New("pdcp: PDU shorter than its header")
	// ErrNoSN: the PDU is a control PDU (D/C bit 0), which has no SN.
	ErrNoSN = errors.New("pdcp: PDU carries no sequence number")
	// ErrSNBits: the SN length is neither 12 nor 18 bits (a configuration
	// error, not a property of the packet).
	ErrSNBits = errors.New("pdcp: SN length must be 12 or 18 bits")
)

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
