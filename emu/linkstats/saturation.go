package linkstats

import "time"

// Saturation is what a rate limiter delivered while its queue never
// emptied, against what it was configured to deliver meanwhile.
type Saturation struct {
	// Seconds is the time the saturated intervals cover, Intervals how
	// many there were.
	Seconds   float64
	Intervals int
	// Delivered is the IP-layer rate sent over the saturated intervals,
	// Configured the mean configured IP-layer rate over the same
	// intervals, in bit/s; both 0 when there were none.
	Delivered, Configured float64
}

// Ratio is Delivered ÷ Configured; 0 when nothing was saturated.
func (s Saturation) Ratio() float64 {
	if s.Configured <= 0 {
		return 0
	}
	return s.Delivered / s.Configured
}

// SaturationOptions tune Saturated; the zero value is the default.
type SaturationOptions struct {
	// Capacity returns the mean configured IP-layer rate (bit/s) over
	// [from, to), for rates that change between readings (a trace
	// player's schedule). Nil: the rate in force at both ends of an
	// interval, and an interval whose ends differ in rate is left out,
	// since when the rate changed inside it is unknown.
	Capacity func(from, to time.Duration) float64
	// Margin is by how many bytes the backlog at the start of an interval
	// must exceed what left during it; default MaxFrame, since the class
	// and the leaf are read one after the other and a packet can move
	// between the two reads.
	Margin uint64
}

// Saturated finds the intervals between consecutive usable readings (see
// Usable) in which the
// queue never emptied — the backlog at the start exceeds, by Margin, the
// bytes sent during the interval, so all of them were already queued —
// and sums what the limiter delivered in them. Intervals with no
// configured rate (an outage) are left out: the limiter is meant to hold
// its queue then.
func Saturated(samples []Sample, o SaturationOptions) (Saturation, error) {
	var out Saturation
	if err := check(samples); err != nil {
		return out, err
	}
	samples = Usable(samples)
	margin := o.Margin
	if margin == 0 {
		margin = MaxFrame
	}
	var ip, configured float64 // bits, bit·s
	for i := range len(samples) - 1 {
		a, b := samples[i], samples[i+1]
		if a.Backlog < b.Bytes-a.Bytes+margin {
			continue
		}
		var rate float64
		switch {
		case o.Capacity != nil:
			rate = o.Capacity(a.T, b.T)
		case a.Rate == b.Rate:
			rate = a.Rate
		}
		if rate <= 0 {
			continue
		}
		dt := (b.T - a.T).Seconds()
		out.Seconds += dt
		out.Intervals++
		ip += ipBytes(a, b) * 8
		configured += rate * dt
	}
	if out.Seconds > 0 {
		out.Delivered = ip / out.Seconds
		out.Configured = configured / out.Seconds
	}
	return out, nil
}
