package pdcp

import "strconv"

// SN lengths the package supports: 12 bits (LTE DC, one of NR's two
// options) and 18 bits (NR). Both sides of a DC path must use the same one;
// the header does not say which it is.
const (
	SNBits12 = 12
	SNBits18 = 18
)

// CheckSNBits reports whether bits is a supported SN length, as a
// *FieldError for the field SNBits that is ErrSNBits to errors.Is.
func CheckSNBits(bits int) error {
	if bits != SNBits12 && bits != SNBits18 {
		return &FieldError{Field: "SNBits", Value: strconv.Itoa(bits), Err: snBitsRange{}}
	}
	return nil
}

// Window returns W = 2^(bits-1), the number of COUNTs the receiver accepts
// ahead of the first one it still waits for, and the size of its buffer.
func Window(bits int) int { return 1 << (bits - 1) }

// HeaderLen returns the length of the PDCP data PDU header for an SN of
// bits bits: 2 bytes for 12 bits, 3 bytes for 18 bits.
func HeaderLen(bits int) int {
	if bits == SNBits18 {
		return 3
	}
	return 2
}

// SN returns the sequence number that carries count: its low bits bits.
func SN(count uint64, bits int) uint32 { return uint32(count & (1<<bits - 1)) }

// PutHeader writes the data PDU header for sn (only its low bits bits)
// into b[:HeaderLen(bits)]: D/C = 1, reserved bits 0. A PDU is that header
// followed by the SDU, the whole IP packet, carried whole in one UDP
// datagram (emu/dcproxy writes the header into the headroom in front of
// the packet).
func PutHeader(b []byte, sn uint32, bits int) {
	if bits == SNBits18 {
		b[0] = 0x80 | byte(sn>>16)&0x03
		b[1] = byte(sn >> 8)
		b[2] = byte(sn)
		return
	}
	b[0] = 0x80 | byte(sn>>8)&0x0F
	b[1] = byte(sn)
}

// ParseHeader reads the SN of the data PDU at the start of pdu and returns
// it with the SDU after the header, pdu[HeaderLen(bits):] (not a copy):
// ErrShort if pdu is shorter than the header, ErrNoSN for a control PDU
// (D/C = 0). Reserved bits are ignored, as TS 38.323 tells the receiver to.
func ParseHeader(pdu []byte, bits int) (sn uint32, sdu []byte, err error) {
	n := HeaderLen(bits)
	if len(pdu) < n {
		return 0, nil, ErrShort
	}
	if pdu[0]&0x80 == 0 {
		return 0, nil, ErrNoSN
	}
	if bits == SNBits18 {
		sn = uint32(pdu[0]&0x03)<<16 | uint32(pdu[1])<<8 | uint32(pdu[2])
	} else {
		sn = uint32(pdu[0]&0x0F)<<8 | uint32(pdu[1])
	}
	return sn, pdu[n:], nil
}
