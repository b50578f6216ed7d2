package delayline

import (
	"fmt"
	"math"
	"time"
)

// DefaultJitterCorr is the jitter's time constant when Params.JitterCorr is 0.
const DefaultJitterCorr = 20 * time.Millisecond

// Params are one direction of one link's impairments.
type Params struct {
	// Delay is the mean one-way delay added to every packet; ≥ 0.
	Delay time.Duration
	// Jitter is the standard deviation of the delay (absolute; a
	// coefficient of variation is converted by the caller); ≥ 0.
	Jitter time.Duration
	// JitterCorr is the time constant of the order-preserving jitter
	// process; 0 means DefaultJitterCorr. Ignored with Reorder.
	JitterCorr time.Duration
	// Loss is the probability that a packet is dropped, in [0, 1].
	Loss float64
	// Reorder draws each packet's delay independently and releases packets
	// in order of due time, so they can be reordered (netem's behaviour).
	Reorder bool
}

// Validate reports the first parameter out of range, by name.
func (p Params) Validate() error {
	switch {
	case p.Delay < 0:
		return fmt.Errorf("delayline: delay %v: negative", p.Delay)
	case p.Jitter < 0:
		return fmt.Errorf("delayline: jitter %v: negative", p.Jitter)
	case p.JitterCorr < 0:
		return fmt.Errorf("delayline: jitter correlation time %v: negative", p.JitterCorr)
	case math.IsNaN(p.Loss) || p.Loss < 0 || p.Loss > 1:
		return fmt.Errorf("delayline: loss %v: want a probability in [0, 1]", p.Loss)
	}
	return nil
}

// PerPacket reports whether the line's draws can differ between
// neighbouring packets (loss, independent delays), so it must see the
// packets the wire carries rather than GSO super-packets: a verdict covers
// a super-packet whole, and one kept whole (a UDP GSO batch, up to 44 TCP
// segments) would be lost or delayed as one.
func (p Params) PerPacket() bool { return p.Loss > 0 || p.Reorder }

func (p Params) withDefaults() Params {
	if p.JitterCorr == 0 {
		p.JitterCorr = DefaultJitterCorr
	}
	return p
}
