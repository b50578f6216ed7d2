package record

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Version is the recording protocol's version; a far end refuses any
// other.
const Version = 1

// DefaultPort is where `emu record serve` listens (TCP for control, UDP
// for the streams) unless told otherwise.
const DefaultPort = 7117

// The kinds of datagram.
const (
	kindLoad     = 1 // one packet of the saturating stream
	kindProbe    = 2 // a light probe, every ProbeEvery
	kindFeedback = 3 // what a receiver saw, to its sender
	kindHello    = 4 // near end to far end: where to send the downlink
)

// magic opens every datagram, so stray traffic is not counted.
var magic = [2]byte{'e', 'R'}

// headerLen is the datagram header: magic, version, kind, session, seq,
// send time; load and feedback datagrams add their fields (longLen).
const (
	headerLen = 24
	longLen   = headerLen + 24
)

// datagram is the header of one datagram.
type datagram struct {
	kind    byte
	session uint32
	seq     uint64
	sent    int64 // sender's wall clock, ns since the Unix epoch

	// Feedback: the rate the receiver saw delivered lately (bit/s, idle
	// time left out), the queue it sees standing (ns) and how the last
	// pause ended (drain: the link's idle time after it, ns; noDrain if
	// the queue outlasted it; 0 if none seen yet).
	// Load: pause is the pause that ended just before this packet (ns),
	// 0 for every packet but the first after a pause.
	rate         uint64
	queue, drain int64
	drains       uint32 // pauses judged so far: a new judgement when it changes
	// ref is the send time (sender's clock) of the load packet whose
	// delay gave queue, so the sender can carry it forward to now.
	ref   int64
	pause int64
}

// noDrain reports a pause that did not empty the queue.
const noDrain = -1

// errNotOurs is returned for a datagram that is not the protocol's.
var errNotOurs = errors.New("not an emu record datagram")

// put writes d's header into b, which must hold longLen bytes for
// feedback and headerLen otherwise, and returns the bytes used.
func (d *datagram) put(b []byte) int {
	b[0], b[1], b[2], b[3] = magic[0], magic[1], Version, d.kind
	binary.BigEndian.PutUint32(b[4:], d.session)
	binary.BigEndian.PutUint64(b[8:], d.seq)
	binary.BigEndian.PutUint64(b[16:], uint64(d.sent))
	switch d.kind {
	case kindFeedback:
		binary.BigEndian.PutUint32(b[24:], uint32(min(d.rate/1000, 1<<32-1))) // kbit/s
		binary.BigEndian.PutUint32(b[28:], uint32(min(max(d.queue/1000, 0), 1<<32-1)))
		binary.BigEndian.PutUint32(b[32:], d.drains)
		drain := int32(noDrain)
		if d.drain != noDrain {
			drain = int32(min(max(d.drain/1000, 0), 1<<31-1)) // µs
		}
		binary.BigEndian.PutUint32(b[36:], uint32(drain))
		binary.BigEndian.PutUint64(b[40:], uint64(d.ref))
	case kindLoad:
		binary.BigEndian.PutUint64(b[24:], uint64(d.pause))
		clear(b[32:longLen])
	default:
		return headerLen
	}
	return longLen
}

// parse reads a datagram's header from b.
func (d *datagram) parse(b []byte) error {
	if len(b) < headerLen || b[0] != magic[0] || b[1] != magic[1] {
		return errNotOurs
	}
	if b[2] != Version {
		return fmt.Errorf("%w: version %d, want %d", errNotOurs, b[2], Version)
	}
	d.kind = b[3]
	d.session = binary.BigEndian.Uint32(b[4:])
	d.seq = binary.BigEndian.Uint64(b[8:])
	d.sent = int64(binary.BigEndian.Uint64(b[16:]))
	d.rate, d.queue, d.drain, d.drains, d.ref, d.pause = 0, 0, 0, 0, 0, 0
	switch d.kind {
	case kindProbe, kindHello:
	case kindLoad, kindFeedback:
		if len(b) < longLen {
			return fmt.Errorf("%w: kind %d of %d bytes", errNotOurs, d.kind, len(b))
		}
		if d.kind == kindLoad {
			d.pause = int64(binary.BigEndian.Uint64(b[24:]))
			if d.pause < 0 {
				return fmt.Errorf("%w: negative pause", errNotOurs)
			}
			break
		}
		d.rate = uint64(binary.BigEndian.Uint32(b[24:])) * 1000
		d.queue = int64(binary.BigEndian.Uint32(b[28:])) * 1000
		d.drains = binary.BigEndian.Uint32(b[32:])
		d.drain = int64(int32(binary.BigEndian.Uint32(b[36:])))
		if d.drain != noDrain {
			d.drain *= 1000
		}
		d.ref = int64(binary.BigEndian.Uint64(b[40:]))
	default:
		return fmt.Errorf("%w: kind %d", errNotOurs, d.kind)
	}
	return nil
}
