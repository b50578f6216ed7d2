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
	// Bursts replaces Loss by a Gilbert–Elliott model when its P is above 0.
	Bursts GilbertElliott
}

// GilbertElliott is netem's two-state burst-loss model ("loss gemodel p r
// 1-h 1-k"): a packet meets the state the line is in, is lost with that
// state's probability, and moves the line on. Losses then come in bursts
// of 1/R packets on average (with BadLoss 1), a fraction P/(P+R) of the
// time. Each arrival takes two draws (state, loss), so the pattern still
// depends on the seed and the arrival index only.
type GilbertElliott struct {
	P        float64 // probability of moving from good to bad, per packet
	R        float64 // probability of moving from bad to good, per packet
	BadLoss  float64 // loss probability in the bad state (netem's 1-h)
	GoodLoss float64 // loss probability in the good state (netem's 1-k)
}

// MeanLoss is the model's long-run loss probability.
func (g GilbertElliott) MeanLoss() float64 {
	if g.P == 0 {
		return 0
	}
	bad := g.P / (g.P + g.R)
	return bad*g.BadLoss + (1-bad)*g.GoodLoss
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
	case p.Bursts.P > 0 && p.Loss > 0:
		return fmt.Errorf("delayline: loss %v and a burst-loss model: one loss model at a time", p.Loss)
	}
	g := p.Bursts
	for _, v := range []struct {
		name string
		p    float64
	}{{"p", g.P}, {"r", g.R}, {"1-h", g.BadLoss}, {"1-k", g.GoodLoss}} {
		if math.IsNaN(v.p) || v.p < 0 || v.p > 1 {
			return fmt.Errorf("delayline: burst loss %s %v: want a probability in [0, 1]", v.name, v.p)
		}
	}
	if g.P > 0 && g.R == 0 {
		return fmt.Errorf("delayline: burst loss r 0: the bad state would never end")
	}
	return nil
}

// PerPacket reports whether the line's draws can differ between
// neighbouring packets (loss, independent delays), so it must see the
// packets the wire carries rather than GSO super-packets: a verdict covers
// a super-packet whole, and one kept whole (a UDP GSO batch, up to 44 TCP
// segments) would be lost or delayed as one.
func (p Params) PerPacket() bool { return p.Loss > 0 || p.Bursts.P > 0 || p.Reorder }

func (p Params) withDefaults() Params {
	if p.JitterCorr == 0 {
		p.JitterCorr = DefaultJitterCorr
	}
	return p
}
