package pdcp

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The NR-U DL DATA DELIVERY STATUS frame (DDDS, TS 38.425 §5.5.2.2, PDU
// type 1): what a leg (the DU, or the secondary node) tells the PDCP host
// about one bearer, and the feedback flow control runs on. Octets in the
// order the specification gives them ("ind" = indication flag):
//
//	1      PDU type (4 bits) = 1 | highest transmitted NR PDCP SN ind |
//	       highest delivered NR PDCP SN ind | final frame ind | lost packet report
//	2      spare (4 bits) | data rate ind | highest retransmitted NR PDCP SN ind |
//	       highest delivered retransmitted NR PDCP SN ind | cause report
//	4      desired buffer size (DBS), bytes
//	0/4    desired data rate, bytes per second                 (data rate ind)
//	0/1+6n number of lost NR-U SN ranges, then n × start, end  (lost packet report)
//	0/3    highest successfully delivered NR PDCP SN           (highest delivered ind)
//	0/3    highest transmitted NR PDCP SN                      (highest transmitted ind)
//	0/1    cause value                                         (cause report)
//	0/3    highest successfully delivered retransmitted SN     (its ind)
//	0/3    highest retransmitted NR PDCP SN                    (its ind)
//	0–3    padding: the frame is n·4 − 2 octets long
//
// Multi-octet fields are big-endian. The length rule n·4 − 2 is the
// specification's: the frame travels in a GTP-U extension header, whose
// length and next-type octets make it a multiple of 4 (srsRAN packs and
// checks the same).
//
// emu encodes only the first two octets, the DBS, the desired data rate
// when it has one, the highest delivered and highest transmitted SNs and
// the padding: at most MaxDeliveryStatusLen octets. The decoder reads every
// field above: it skips lost NR-U SN ranges (emu's PDCP host does not
// retransmit, and the DBS and SNs in such a frame are still good) and the
// retransmission and cause fields, checking only that they are all there,
// and ignores spare bits and any octets after the last field (padding, and
// the spare extension later releases may add).

// MaxDeliveryStatusLen is the longest frame AppendDeliveryStatus writes:
// 2 + 4 + 4 + 3 + 3 octets, padded to 18.
const MaxDeliveryStatusLen = 18

// deliveryStatusType is the PDU type of a DDDS frame, in the first octet's
// high nibble.
const deliveryStatusType = 1

// Flags of the first octet (low nibble) and the second.
const (
	ddsTransmitted = 0x08 // octet 1: highest transmitted NR PDCP SN present
	ddsDelivered   = 0x04 // octet 1: highest delivered NR PDCP SN present
	ddsFinal       = 0x02 // octet 1: final frame
	ddsLost        = 0x01 // octet 1: lost NR-U SN ranges present

	ddsRate          = 0x08 // octet 2: desired data rate present
	ddsRetransmitted = 0x04 // octet 2: highest retransmitted SN present
	ddsDeliveredRetx = 0x02 // octet 2: highest delivered retransmitted SN present
	ddsCause         = 0x01 // octet 2: cause value present

	ddsLostRangeBytes = 6 // one lost NR-U SN range: start and end, 3 octets each
)

// Errors of ParseDeliveryStatus, wrapped with what was wrong where; check
// them with errors.Is.
var (
	// ErrNotDeliveryStatus: the frame's PDU type is not 1.
	ErrNotDeliveryStatus = errors.New("pdcp: not a DL DATA DELIVERY STATUS frame")
	// ErrStatusTruncated: the frame ends before a field its flags announce.
	ErrStatusTruncated = errors.New("pdcp: DL DATA DELIVERY STATUS frame truncated")
)

// DeliveryStatus is the part of a DL DATA DELIVERY STATUS frame emu uses.
// SNs are PDCP SNs as the frame carries them (24 bits on the wire, of which
// a 12- or 18-bit SN uses the low bits); Leg.ReportStatus widens them to
// COUNTs.
type DeliveryStatus struct {
	// DesiredBuffer is the desired buffer size (DBS) in bytes: how many
	// bytes the leg wants beyond the highest delivered SN (RLC UM: beyond
	// the highest transmitted). 0 asks the PDCP host to stop sending on the
	// leg.
	DesiredBuffer uint32
	// DesiredRate is the desired data rate in bytes per second; 0 means the
	// frame carries none.
	DesiredRate uint32
	// HighestDelivered is the highest PDCP SN delivered in sequence to the
	// UE (RLC AM), present when HasDelivered.
	HighestDelivered uint32
	// HighestTransmitted is the highest PDCP SN handed to the lower layers
	// (RLC UM, or a leg without acknowledgements, such as emu's queue),
	// present when HasTransmitted.
	HighestTransmitted uint32
	HasDelivered       bool
	HasTransmitted     bool
	// Final marks the last report of the bearer (final frame indication).
	Final bool
}

// AppendDeliveryStatus appends the frame for s to b and returns the
// extended slice; it allocates only if b lacks MaxDeliveryStatusLen octets
// of capacity. SNs are written modulo 2^24, and an SN whose Has flag is
// false is not written at all.
func AppendDeliveryStatus(b []byte, s DeliveryStatus) []byte {
	start := len(b)
	o1 := byte(deliveryStatusType << 4)
	if s.HasTransmitted {
		o1 |= ddsTransmitted
	}
	if s.HasDelivered {
		o1 |= ddsDelivered
	}
	if s.Final {
		o1 |= ddsFinal
	}
	var o2 byte
	if s.DesiredRate != 0 {
		o2 |= ddsRate
	}
	b = append(b, o1, o2)
	b = binary.BigEndian.AppendUint32(b, s.DesiredBuffer)
	if s.DesiredRate != 0 {
		b = binary.BigEndian.AppendUint32(b, s.DesiredRate)
	}
	if s.HasDelivered {
		b = appendSN24(b, s.HighestDelivered)
	}
	if s.HasTransmitted {
		b = appendSN24(b, s.HighestTransmitted)
	}
	for (len(b)-start)%4 != 2 {
		b = append(b, 0)
	}
	return b
}

func appendSN24(b []byte, sn uint32) []byte {
	return append(b, byte(sn>>16), byte(sn>>8), byte(sn))
}

// ParseDeliveryStatus decodes the DDDS frame at the start of b. It never
// panics and does not allocate unless it fails. A frame whose PDU type is
// not 1 is ErrNotDeliveryStatus; one that ends before a field its flags
// announce is ErrStatusTruncated, both wrapped with the detail. Lost NR-U
// SN ranges, retransmission SNs and the cause are skipped (see the layout
// above); octets after the last field are ignored.
func ParseDeliveryStatus(b []byte) (DeliveryStatus, error) {
	var s DeliveryStatus
	r := frameReader{b: b}
	head := r.take(2, "the flags")
	if r.err != nil {
		if len(b) > 0 && b[0]>>4 != deliveryStatusType {
			return s, typeError(b[0])
		}
		return s, r.err
	}
	if head[0]>>4 != deliveryStatusType {
		return s, typeError(head[0])
	}
	o1, o2 := head[0], head[1]
	s.Final = o1&ddsFinal != 0
	s.DesiredBuffer = r.uint32("the desired buffer size")
	if o2&ddsRate != 0 {
		s.DesiredRate = r.uint32("the desired data rate")
	}
	if o1&ddsLost != 0 {
		if n := r.take(1, "the number of lost NR-U SN ranges"); n != nil {
			r.take(int(n[0])*ddsLostRangeBytes, "the lost NR-U SN ranges")
		}
	}
	if o1&ddsDelivered != 0 {
		s.HighestDelivered, s.HasDelivered = r.sn("the highest delivered NR PDCP SN"), true
	}
	if o1&ddsTransmitted != 0 {
		s.HighestTransmitted, s.HasTransmitted = r.sn("the highest transmitted NR PDCP SN"), true
	}
	if o2&ddsCause != 0 {
		r.take(1, "the cause value")
	}
	if o2&ddsDeliveredRetx != 0 {
		r.take(3, "the highest delivered retransmitted NR PDCP SN")
	}
	if o2&ddsRetransmitted != 0 {
		r.take(3, "the highest retransmitted NR PDCP SN")
	}
	if r.err != nil {
		return DeliveryStatus{}, r.err
	}
	return s, nil
}

func typeError(o1 byte) error {
	return fmt.Errorf("%w: PDU type %d (want %d)", ErrNotDeliveryStatus, o1>>4, deliveryStatusType)
}

// frameReader reads fields in order and keeps the first error, so the
// parser reads as the layout does and checks once at the end.
type frameReader struct {
	b   []byte
	off int
	err error
}

// take returns the next n octets, or nil (and sets err) if the frame ends
// first or an earlier field was missing.
func (r *frameReader) take(n int, field string) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.b)-r.off < n {
		r.err = fmt.Errorf("%w: %s needs octets %d–%d, the frame has %d",
			ErrStatusTruncated, field, r.off+1, r.off+n, len(r.b))
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *frameReader) uint32(field string) uint32 {
	if p := r.take(4, field); p != nil {
		return binary.BigEndian.Uint32(p)
	}
	return 0
}

func (r *frameReader) sn(field string) uint32 {
	if p := r.take(3, field); p != nil {
		return uint32(p[0])<<16 | uint32(p[1])<<8 | uint32(p[2])
	}
	return 0
}
