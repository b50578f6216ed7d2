package pdcp

import "encoding/binary"

// IP header geometry used by the shim.
const (
	ipv4MinHeader = 20
	ipv6Header    = 40
	maxIPLength   = 0xFFFF
)

// Encap writes pkt with the shim for sn inserted after its IP header into
// dst and returns dst[:len(pkt)+ShimLen(bits)]. The shim is the PDCP data
// PDU header (only the low bits bits of sn are sent) followed by the original
// IP protocol; the IP protocol becomes 253 and the IP length grows by the
// shim (IPv4: header checksum updated incrementally, RFC 1624). For IPv6 the
// shim goes right after the 40-byte fixed header, before any extension
// header, and the fixed header's next-header field is the one replaced.
//
// dst may be pkt[:0] to encapsulate in place when cap(pkt) has room;
// otherwise dst must not overlap pkt. If cap(dst) is too small a new buffer
// is allocated (the only allocation Encap can make).
//
// Errors (pkt is not modified): ErrSNBits, ErrNotIP, ErrShort, ErrLength,
// ErrChecksum, ErrEncapsulated, ErrTooBig.
func Encap(dst, pkt []byte, sn uint32, bits int) ([]byte, error) {
	if bits != SNBits12 && bits != SNBits18 {
		return nil, ErrSNBits
	}
	hdrLen, protoOff, err := checkIP(pkt)
	if err != nil {
		return nil, err
	}
	if pkt[protoOff] == IPProto {
		return nil, ErrEncapsulated
	}
	shim := ShimLen(bits)
	ipv4 := protoOff == 9
	lenOff := 4 // IPv6 payload length
	if ipv4 {
		lenOff = 2 // IPv4 total length
		// The incremental update below restores the exact original checksum
		// only if it was valid and not the non-canonical 0xFFFF.
		if pkt[10] == 0xFF && pkt[11] == 0xFF || onesSum(pkt[:hdrLen]) != 0xFFFF {
			return nil, ErrChecksum
		}
	}
	oldLen := binary.BigEndian.Uint16(pkt[lenOff:])
	if int(oldLen)+shim > maxIPLength {
		return nil, ErrTooBig
	}
	proto := pkt[protoOff]
	ttl := pkt[8] // IPv4 only: protocol shares its checksum word with TTL

	n := len(pkt) + shim
	out := dst[:0]
	if cap(out) < n {
		out = make([]byte, n)
	}
	out = out[:n]
	// Payload first: when out and pkt share their start this is a forward
	// memmove that leaves the header bytes in place.
	copy(out[hdrLen+shim:], pkt[hdrLen:])
	copy(out[:hdrLen], pkt[:hdrLen])
	putHeader(out[hdrLen:], sn, bits)
	out[hdrLen+shim-1] = proto
	out[protoOff] = IPProto
	newLen := oldLen + uint16(shim)
	binary.BigEndian.PutUint16(out[lenOff:], newLen)
	if ipv4 {
		updateChecksum(out[10:12], oldLen, newLen, uint16(ttl)<<8|uint16(proto), uint16(ttl)<<8|IPProto)
	}
	return out, nil
}

// Decap removes the shim from pdu in place and returns the SN it carried and
// the restored packet, which is pdu[ShimLen(bits):] (the IP header is moved
// forward over the shim; the payload does not move). The packet is byte for
// byte the one Encap was given.
//
// Errors leave pdu unchanged. ErrNotIP and ErrNotPDCP mean a foreign packet
// (pass it; see IsForeign); ErrShort, ErrLength and ErrNoSN a malformed PDU
// (drop it); ErrSNBits a bad configuration.
func Decap(pdu []byte, bits int) (sn uint32, pkt []byte, err error) {
	if bits != SNBits12 && bits != SNBits18 {
		return 0, nil, ErrSNBits
	}
	if len(pdu) == 0 {
		return 0, nil, ErrNotIP
	}
	var hdrLen, protoOff, lenOff int
	switch pdu[0] >> 4 {
	case 4:
		if len(pdu) < ipv4MinHeader {
			return 0, nil, ErrShort
		}
		hdrLen, protoOff, lenOff = int(pdu[0]&0x0F)*4, 9, 2
	case 6:
		if len(pdu) < ipv6Header {
			return 0, nil, ErrShort
		}
		hdrLen, protoOff, lenOff = ipv6Header, 6, 4
	default:
		return 0, nil, ErrNotIP
	}
	if pdu[protoOff] != IPProto {
		return 0, nil, ErrNotPDCP
	}
	if _, _, err := checkIP(pdu); err != nil {
		return 0, nil, err
	}
	shim := ShimLen(bits)
	if len(pdu) < hdrLen+shim {
		return 0, nil, ErrShort
	}
	sn, err = parseHeader(pdu[hdrLen:], bits)
	if err != nil {
		return 0, nil, err
	}
	proto := pdu[hdrLen+shim-1]
	oldLen := binary.BigEndian.Uint16(pdu[lenOff:])
	newLen := oldLen - uint16(shim)
	binary.BigEndian.PutUint16(pdu[lenOff:], newLen)
	pdu[protoOff] = proto
	if protoOff == 9 {
		ttl := uint16(pdu[8]) << 8
		updateChecksum(pdu[10:12], oldLen, newLen, ttl|IPProto, ttl|uint16(proto))
	}
	copy(pdu[shim:shim+hdrLen], pdu[:hdrLen])
	return sn, pdu[shim:], nil
}

// checkIP validates the IP header of pkt against its length and returns the
// header length (where the shim goes) and the offset of the protocol field.
func checkIP(pkt []byte) (hdrLen, protoOff int, err error) {
	if len(pkt) == 0 {
		return 0, 0, ErrNotIP
	}
	var declared int
	switch pkt[0] >> 4 {
	case 4:
		if len(pkt) < ipv4MinHeader {
			return 0, 0, ErrShort
		}
		hdrLen = int(pkt[0]&0x0F) * 4
		if hdrLen < ipv4MinHeader {
			return 0, 0, ErrLength
		}
		declared = int(binary.BigEndian.Uint16(pkt[2:]))
		if declared < hdrLen {
			return 0, 0, ErrLength
		}
		protoOff = 9
	case 6:
		if len(pkt) < ipv6Header {
			return 0, 0, ErrShort
		}
		hdrLen = ipv6Header
		declared = ipv6Header + int(binary.BigEndian.Uint16(pkt[4:]))
		protoOff = 6
	default:
		return 0, 0, ErrNotIP
	}
	switch {
	case len(pkt) < declared || len(pkt) < hdrLen:
		return 0, 0, ErrShort
	case len(pkt) > declared:
		return 0, 0, ErrLength
	}
	return hdrLen, protoOff, nil
}

// onesSum returns the folded 16-bit one's complement sum of b (even length).
func onesSum(b []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(b[i])<<8 | uint32(b[i+1])
	}
	for s > 0xFFFF {
		s = s&0xFFFF + s>>16
	}
	return uint16(s)
}

// updateChecksum applies RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), for two
// changed 16-bit words. Applied forward and then backward it gives back the
// original checksum for every value except 0xFFFF, which Encap refuses.
func updateChecksum(c []byte, m1, m1n, m2, m2n uint16) {
	hc := binary.BigEndian.Uint16(c)
	s := uint32(^hc) + uint32(^m1) + uint32(m1n) + uint32(^m2) + uint32(m2n)
	for s > 0xFFFF {
		s = s&0xFFFF + s>>16
	}
	binary.BigEndian.PutUint16(c, ^uint16(s))
}
