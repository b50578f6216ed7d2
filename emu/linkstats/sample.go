package linkstats

import (
	"fmt"
	"time"
)

// Sample is one reading of a link direction's rate limiter.
type Sample struct {
	// T is when the reading was taken, since the run's epoch: the middle
	// of the reading when it takes time (Took).
	T time.Duration
	// Took is how long the reading took, from before its first request
	// to after its last (0: unknown, taken as instant). The counts come
	// from some moment inside it, so a reading that took long (its thread
	// was preempted) has an uncertain time, and readings that took over
	// MaxTook are left out (see Usable).
	Took time.Duration
	// Bytes and Packets are the cumulative counts sent by the HTB class:
	// Ethernet frames, each counting Header bytes besides the IP packet
	// the rate counts.
	Bytes, Packets uint64
	// Header is the bytes the link adds to each packet its rate counts:
	// the Ethernet header, and the UDP encapsulation of the PDCP batch
	// path's PDUs (0 stands for FrameHeader).
	Header int
	// Backlog is the bytes (Ethernet frames) held in the bfifo leaf.
	Backlog uint64
	// Queued is the packets held there as the qdisc counts them: a GSO
	// super-packet once, however many segments it carries (0: unknown).
	// Backlog ÷ Queued is the size in which the limiter sends.
	Queued uint64
	// Drops is the cumulative count of packets dropped at the queue limit.
	Drops uint64
	// Rate is the configured IP-layer rate in force at T, in bit/s; 0 in
	// an outage.
	Rate float64
	// LatePeak is the direction's delay line's largest release lateness
	// since the previous reading (0 without a delay line).
	LatePeak time.Duration
}

// Frame sizes the rate limiter works with: links are shaped at the IP
// layer, and the HTB class runs at the wire rate that gives a full-size
// packet (IPMTU bytes of IP, FrameHeader more on the wire) exactly the
// configured IP-layer rate.
const (
	FrameHeader = 14
	IPMTU       = 1500
	// MaxFrame is a full-size frame, IPMTU + FrameHeader bytes.
	MaxFrame = IPMTU + FrameHeader
)

// WireRate is the HTB class rate (bit/s of Ethernet frames) for an
// IP-layer rate on a link that adds header bytes to each packet, as the
// shaper sets it.
func WireRate(ipRate float64, header int) float64 {
	return ipRate * float64(IPMTU+header) / IPMTU
}

// header is the bytes the link adds to each packet the rate counts.
func (s Sample) header() int {
	if s.Header == 0 {
		return FrameHeader
	}
	return s.Header
}

// maxFrame is a full-size packet as the link counts it.
func (s Sample) maxFrame() int { return IPMTU + s.header() }

// IPSent is the part of the cumulative count sent that the rate counts:
// without the header the link adds to each packet.
func (s Sample) IPSent() float64 {
	return max(0, float64(s.Bytes)-float64(s.Packets)*float64(s.header()))
}

// MaxTook is the longest a reading may take to be used. One reading of
// a rate limiter takes 25–50 µs; one that took a millisecond was
// preempted, and its counts may be from any moment in it.
const MaxTook = time.Millisecond

// Usable returns the readings that took at most MaxTook, in order; the
// figures are computed from those. Dropping a reading only merges two
// intervals: the error bounds hold with the longer interval.
func Usable(samples []Sample) []Sample {
	for i, s := range samples {
		if s.Took > MaxTook {
			out := append([]Sample(nil), samples[:i]...)
			for _, s := range samples[i+1:] {
				if s.Took <= MaxTook {
					out = append(out, s)
				}
			}
			return out
		}
	}
	return samples
}

// packetDelta is the packets sent between two readings. The kernel's class
// packet counter is 32 bits wide, so the difference is taken modulo 2^32
// (no interval sends 4 billion packets).
func packetDelta(a, b Sample) uint64 { return uint64(uint32(b.Packets - a.Packets)) }

// ipBytes is the IP-layer part of the bytes sent between two readings.
func ipBytes(a, b Sample) float64 {
	wire := float64(b.Bytes - a.Bytes)
	return max(0, wire-float64(packetDelta(a, b))*float64(b.header()))
}

// check reports the first reading that breaks the series' invariants: time
// strictly increasing, sent bytes never decreasing.
func check(samples []Sample) error {
	for i := 1; i < len(samples); i++ {
		p, s := samples[i-1], samples[i]
		if s.T <= p.T {
			return fmt.Errorf("linkstats: sample %d: time %v not after sample %d's %v", i, s.T, i-1, p.T)
		}
		if s.Bytes < p.Bytes {
			return fmt.Errorf("linkstats: sample %d: sent bytes %d below sample %d's %d (counter reset?)", i, s.Bytes, i-1, p.Bytes)
		}
		if s.Rate < 0 {
			return fmt.Errorf("linkstats: sample %d: negative rate %v", i, s.Rate)
		}
	}
	if len(samples) > 0 && samples[0].Rate < 0 {
		return fmt.Errorf("linkstats: sample 0: negative rate %v", samples[0].Rate)
	}
	return nil
}
