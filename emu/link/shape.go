package link

import (
	"time"

	"github.com/dc-emu/emu/emu/delayline"
)

// Shape is what one direction of a link does to packets, as the run's
// configuration compiles it for this package (package emu): the rate
// limiter's rate and queue, and the delay line's impairments. A trace that
// drives the direction replaces Rate, and Delay and Loss when it carries
// them.
type Shape struct {
	// Rate is the capacity in bit/s at the IP layer while no trace drives
	// it.
	Rate float64
	// Queue bounds the rate limiter's queue.
	Queue QueueLimit
	// Delay is the one-way delay.
	Delay time.Duration
	// Jitter is the delay's standard deviation: Jitter itself, or JitterCV
	// times the delay (a trace's delay too) when JitterCV is set.
	Jitter   time.Duration
	JitterCV float64
	// JitterCorr is the correlation time of order-preserving jitter.
	JitterCorr time.Duration
	// Reorder lets jitter reorder packets (independent delays).
	Reorder bool
	// Loss is the probability that a packet is dropped at random.
	Loss float64
	// Bursts, when its P is above 0, drops packets in bursts instead.
	Bursts delayline.GilbertElliott
	// Encap is the bytes each packet carries on the link that the rate
	// does not count, besides the Ethernet header: the UDP and IP
	// headers around the PDCP batch path's PDUs (EncapUDP), which the air
	// does not carry; the shaper runs faster by them.
	Encap int
}

// EncapUDP is the UDP encapsulation of a PDU on the link: an IPv4 and a
// UDP header.
const EncapUDP = 20 + 8

// jitter is the delay's standard deviation at delay.
func (s Shape) jitter(delay time.Duration) time.Duration {
	if s.JitterCV > 0 {
		return time.Duration(s.JitterCV * float64(delay))
	}
	return s.Jitter
}

// Impaired reports whether the direction needs a delay line: it delays,
// jitters or drops packets.
func (s Shape) Impaired() bool {
	return s.Delay > 0 || s.jitter(s.Delay) > 0 || s.Loss > 0 || s.Bursts.P > 0
}

// delayParams are the delay line's parameters of the shape.
func (s Shape) delayParams() delayline.Params {
	return delayline.Params{Delay: s.Delay, Jitter: s.jitter(s.Delay), JitterCorr: s.JitterCorr, Loss: s.Loss, Reorder: s.Reorder, Bursts: s.Bursts}
}

// QueueLimit bounds a queue in packets, bytes or time at the current rate;
// exactly one is set.
type QueueLimit struct {
	Packets int
	Bytes   int64
	Time    time.Duration
}

// LimitBytes returns the queue limit in bytes at rate (bit/s), assuming
// full-size packets of mtu bytes for a limit in packets.
func (q QueueLimit) LimitBytes(rate float64, mtu int) int64 {
	switch {
	case q.Packets > 0:
		return int64(q.Packets) * int64(mtu)
	case q.Bytes > 0:
		return q.Bytes
	default:
		b := int64(rate / 8 * q.Time.Seconds())
		return max(b, int64(2*mtu)) // never less than a couple of packets
	}
}
