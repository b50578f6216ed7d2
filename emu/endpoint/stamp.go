package endpoint

import (
	"encoding/binary"
	"time"
)

// Send stamps. The Go servers put a StampSize-byte stamp at body offsets
// 0, K, 2K, ... of /bytes/N (K the stamp interval), each written just
// before the part of the body it starts is handed to the transport:
//
//	magic (4 bytes, 0xE3 'O' 'W' 'D') | K (uint32, big endian) | send time (int64 Unix ns, big endian)
//
// A client recognises them by offset and magic: the first stamp, at offset
// 0, gives K; a body whose first bytes are not a stamp (ngtcp2's sparse
// files are zeros, a file under --root is whatever it is) yields no
// one-way delays, and a later stamp that does not match stops them.
const (
	// StampSize is the length of one stamp.
	StampSize = 16
	// DefaultStampInterval is the stamp interval a zero
	// ServerConfig.StampInterval means.
	DefaultStampInterval = 64 << 10
	// MaxStampInterval is the largest stamp interval.
	MaxStampInterval = 1 << 30
	// NoStamps as ServerConfig.StampInterval sends bodies without stamps.
	NoStamps = -1
)

var stampMagic = [4]byte{0xE3, 'O', 'W', 'D'}

// putStamp writes the stamp of a body stamped every interval bytes, sent
// at sent, into b[:StampSize].
func putStamp(b []byte, interval int64, sent time.Time) {
	_ = b[StampSize-1]
	copy(b, stampMagic[:])
	binary.BigEndian.PutUint32(b[4:], uint32(interval))
	binary.BigEndian.PutUint64(b[8:], uint64(sent.UnixNano()))
}

// parseStamp decodes a stamp; ok is false for bytes that are not one.
func parseStamp(b *[StampSize]byte) (interval int64, sentNs int64, ok bool) {
	if [4]byte(b[:4]) != stampMagic {
		return 0, 0, false
	}
	interval = int64(binary.BigEndian.Uint32(b[4:]))
	sentNs = int64(binary.BigEndian.Uint64(b[8:]))
	if interval < StampSize || interval > MaxStampInterval || sentNs <= 0 {
		return 0, 0, false
	}
	return interval, sentNs, true
}

// stampSink receives the stamps a stampScanner finds: the body offset of
// each, its send time (Unix ns) and the read time of its first byte.
type stampSink interface {
	stamp(offset, sentNs int64, read time.Time)
}

// stampScanner follows a body as it is read and finds the stamps in it,
// also when one is split over two reads. It belongs to the goroutine that
// reads the body, and neither allocates nor copies more than the stamps.
type stampScanner struct {
	off      int64 // body bytes fed so far
	interval int64 // from the first stamp; 0 until then
	next     int64 // offset of the stamp being collected
	have     int   // bytes of it collected so far
	buf      [StampSize]byte
	first    time.Time // read time of its first byte
	// stopped: the body has no stamps, or one did not match (bad).
	stopped, bad bool
}

// feed scans the next bytes of the body, read at now.
func (s *stampScanner) feed(p []byte, now time.Time, sink stampSink) {
	end := s.off + int64(len(p))
	for !s.stopped && s.next < end {
		if s.have == 0 {
			s.first = now
		}
		s.have += copy(s.buf[s.have:], p[s.next+int64(s.have)-s.off:])
		if s.have < StampSize {
			break // the rest comes with the next read
		}
		interval, sent, ok := parseStamp(&s.buf)
		if !ok || (s.interval != 0 && interval != s.interval) {
			s.stopped, s.bad = true, s.interval != 0
			break
		}
		s.interval = interval
		sink.stamp(s.next, sent, s.first)
		s.next += interval
		s.have = 0
	}
	s.off = end
}
