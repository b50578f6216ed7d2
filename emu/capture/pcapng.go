package capture

import (
	"bufio"
	"encoding/binary"
	"io"
	"time"
)

// pcapng block types and options written (draft-ietf-opsawg-pcapng).
const (
	blockSHB = 0x0A0D0D0A
	blockIDB = 0x00000001
	blockISB = 0x00000005
	blockEPB = 0x00000006

	byteOrderMagic = 0x1A2B3C4D

	optEnd        = 0
	optSHBUserApp = 4
	optIfName     = 2
	optIfTsresol  = 9
	optEPBFlags   = 2
	optISBStart   = 2
	optISBEnd     = 3
	optISBIfRecv  = 4
	optISBIfDrop  = 5
	optISBUsrDlv  = 8
)

// Link types of the interface description block.
const (
	linkTypeEthernet = 1
	linkTypeRaw      = 101 // an IPv4 or IPv6 header first
)

// Direction of a packet (the low bits of epb_flags) and reception type
// (bits 2-4).
const (
	dirUnknown  uint32 = 0
	dirInbound  uint32 = 1
	dirOutbound uint32 = 2

	receptionUnicast     uint32 = 1 << 2
	receptionMulticast   uint32 = 2 << 2
	receptionBroadcast   uint32 = 3 << 2
	receptionPromiscuous uint32 = 4 << 2
)

var le = binary.LittleEndian

// ngWriter writes one pcapng section with one interface, little endian,
// timestamps in nanoseconds (if_tsresol 9). writePacket neither allocates
// nor makes a system call until its buffer is full. The first error
// sticks.
type ngWriter struct {
	w       *bufio.Writer
	scratch [64]byte
	err     error
}

func newNgWriter(w io.Writer, ifName string, linkType uint16, snaplen uint32) *ngWriter {
	nw := &ngWriter{w: bufio.NewWriterSize(w, 1<<20)}
	nw.section("emu")
	nw.iface(ifName, linkType, snaplen)
	return nw
}

func (nw *ngWriter) write(b []byte) {
	if nw.err == nil {
		_, nw.err = nw.w.Write(b)
	}
}

// pad4 is the padding that brings n to a multiple of 4.
func pad4(n int) int { return (4 - n&3) & 3 }

// optLen is the length of an option with a value of n bytes.
func optLen(n int) int { return 4 + n + pad4(n) }

// option appends an option to b.
func option(b []byte, code uint16, val []byte) []byte {
	b = le.AppendUint16(b, code)
	b = le.AppendUint16(b, uint16(len(val)))
	b = append(b, val...)
	return append(b, make([]byte, pad4(len(val)))...)
}

func (nw *ngWriter) section(app string) {
	n := 28 + optLen(len(app)) + 4
	b := le.AppendUint32(nil, blockSHB)
	b = le.AppendUint32(b, uint32(n))
	b = le.AppendUint32(b, byteOrderMagic)
	b = le.AppendUint16(b, 1) // major
	b = le.AppendUint16(b, 0) // minor
	b = le.AppendUint64(b, ^uint64(0))
	b = option(b, optSHBUserApp, []byte(app))
	b = option(b, optEnd, nil)
	b = le.AppendUint32(b, uint32(n))
	nw.write(b)
}

func (nw *ngWriter) iface(name string, linkType uint16, snaplen uint32) {
	n := 20 + optLen(len(name)) + optLen(1) + 4
	b := le.AppendUint32(nil, blockIDB)
	b = le.AppendUint32(b, uint32(n))
	b = le.AppendUint16(b, linkType)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, snaplen)
	b = option(b, optIfName, []byte(name))
	b = option(b, optIfTsresol, []byte{9})
	b = option(b, optEnd, nil)
	b = le.AppendUint32(b, uint32(n))
	nw.write(b)
}

// writePacket writes an enhanced packet block for a packet of origLen
// bytes captured at ts whose captured bytes are head followed by tail (a
// segment's rebuilt headers and its payload; tail may be empty).
func (nw *ngWriter) writePacket(ts time.Time, flags uint32, origLen int, head, tail []byte) {
	capLen := len(head) + len(tail)
	pad := pad4(capLen)
	n := 28 + capLen + pad + optLen(4) + 4 + 4
	ns := uint64(ts.UnixNano())
	b := nw.scratch[:0]
	b = le.AppendUint32(b, blockEPB)
	b = le.AppendUint32(b, uint32(n))
	b = le.AppendUint32(b, 0) // interface 0
	b = le.AppendUint32(b, uint32(ns>>32))
	b = le.AppendUint32(b, uint32(ns))
	b = le.AppendUint32(b, uint32(capLen))
	b = le.AppendUint32(b, uint32(origLen))
	nw.write(b)
	nw.write(head)
	nw.write(tail)
	b = nw.scratch[:pad]
	clear(b)
	b = le.AppendUint16(b, optEPBFlags)
	b = le.AppendUint16(b, 4)
	b = le.AppendUint32(b, flags)
	b = le.AppendUint32(b, 0) // opt_endofopt
	b = le.AppendUint32(b, uint32(n))
	nw.write(b)
}

// statistics writes the interface statistics block a capture ends with.
func (nw *ngWriter) statistics(start, end time.Time, st Stats) {
	ts := func(b []byte, t time.Time) []byte {
		ns := uint64(t.UnixNano())
		b = le.AppendUint32(b, uint32(ns>>32))
		return le.AppendUint32(b, uint32(ns))
	}
	n := 20 + 5*optLen(8) + 4 + 4
	b := le.AppendUint32(nil, blockISB)
	b = le.AppendUint32(b, uint32(n))
	b = le.AppendUint32(b, 0)
	b = ts(b, end)
	b = option(b, optISBStart, ts(nil, start))
	b = option(b, optISBEnd, ts(nil, end))
	b = option(b, optISBIfRecv, le.AppendUint64(nil, st.Received))
	b = option(b, optISBIfDrop, le.AppendUint64(nil, st.Dropped))
	b = option(b, optISBUsrDlv, le.AppendUint64(nil, st.Packets))
	b = option(b, optEnd, nil)
	b = le.AppendUint32(b, uint32(n))
	nw.write(b)
}

// flush writes out the buffer and returns the first error.
func (nw *ngWriter) flush() error {
	if nw.err == nil {
		nw.err = nw.w.Flush()
	}
	return nw.err
}
