package linkstats

import "time"

// Saturation is what a rate limiter delivered while its queue never
// emptied, against what it was configured to deliver meanwhile.
type Saturation struct {
	// Seconds is the time the saturated intervals cover, Intervals how
	// many there were, Stretches in how many runs of consecutive ones.
	Seconds              float64
	Intervals, Stretches int
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

// DefaultMinStretch is SaturationOptions.MinStretch's default.
const DefaultMinStretch = 10

// SaturationOptions tune Saturated; the zero value is the default.
type SaturationOptions struct {
	// Capacity returns the mean configured IP-layer rate (bit/s) over
	// [from, to), for rates that change between readings (a trace
	// player's schedule). Nil: the rate in force at both ends of an
	// interval, and an interval whose ends differ in rate is left out,
	// since when the rate changed inside it is unknown.
	Capacity func(from, to time.Duration) float64
	// Margin is by how many bytes the backlog at the start of an interval
	// must exceed what the limiter was configured to send during it;
	// default a full-size frame, since the class and the leaf are read one after
	// the other and a packet can move between the two reads.
	Margin uint64
	// MinStretch is how many of the limiter's packets (Backlog ÷ Queued
	// at its readings, at least MaxFrame) a run of consecutive saturated
	// intervals must have been configured to send to count; default
	// DefaultMinStretch.
	MinStretch float64
}

// Saturated finds the intervals between consecutive usable readings (see
// Usable) that began with more queued than the limiter was configured to
// send in them — the backlog at the start exceeds, by Margin, the
// configured rate's bytes over the interval (frames on the wire, as the
// limiter counts them), so a limiter sending at its rate never ran out —
// and sums what the limiter delivered in them, over the runs of
// consecutive such intervals long enough to count (MinStretch). Intervals
// with no configured rate (an outage) are left out: the limiter is meant
// to hold its queue then.
//
// The intervals are chosen by what the limiter should have sent, never by
// what it sent: a choice of backlog ≥ sent favours the intervals that sent
// little, by a packet's quantisation or by a trace step applied a
// millisecond late, wherever the backlog is often only a few packets. A
// Reno flow with a 300 ms RTT over 10 ms steps of random rate, applied 3 ms
// late, came out at 0.974 of the rate that way (TestSaturatedUnbiased); an
// emu run over the StaticA trace at the high-delay 5:1 ratio had its
// long-delay link judged starved at 0.966, where its readings, chosen by
// the configured rate, give 1.013 (the short-delay link 0.993 and 1.005).
//
// Even so, the choice leans towards the moments just before a packet
// leaves, when the backlog is highest: a run of chosen intervals tends to
// begin just before a departure and end just after one, up to a packet
// more than its configured bytes. Over long runs that is nothing; over
// runs of a few packets each it is the figure. A limiter at 1.3 Mbit/s
// (a trace's dip) sending two-frame GSO super-packets under light load
// came out at 1.022–1.028 of its rate counting every run, and within 1 %
// counting runs of at least ten packets (TestSaturatedShortStretches);
// single frames lean less (under 0.6 % there). emu runs of TCP CUBIC at
// 5 % loss over StaticA, single frames, read 1.013–1.04 counting every
// run (four attempts in a row judged too fast) and 0.996–1.013 with the
// minimum.
func Saturated(samples []Sample, o SaturationOptions) (Saturation, error) {
	var out Saturation
	if err := check(samples); err != nil {
		return out, err
	}
	samples = Usable(samples)
	margin := o.Margin
	minStretch := o.MinStretch
	if minStretch == 0 {
		minStretch = DefaultMinStretch
	}
	var ip, configured float64 // bits, bit·s
	var run stretch
	end := func() {
		if run.long(minStretch) {
			out.Seconds += run.seconds
			out.Intervals += run.intervals
			out.Stretches++
			ip += run.ip
			configured += run.configured
		}
		run = stretch{}
	}
	for i := range len(samples) - 1 {
		a, b := samples[i], samples[i+1]
		var rate float64
		switch {
		case o.Capacity != nil:
			rate = o.Capacity(a.T, b.T)
		case a.Rate == b.Rate:
			rate = a.Rate
		}
		dt := (b.T - a.T).Seconds()
		m := margin
		if m == 0 {
			m = uint64(a.maxFrame())
		}
		if rate <= 0 || float64(a.Backlog) < WireRate(rate, a.header())*dt/8+float64(m) {
			end()
			continue
		}
		run.add(a, dt, ipBytes(a, b)*8, rate*dt)
	}
	end()
	if out.Seconds > 0 {
		out.Delivered = ip / out.Seconds
		out.Configured = configured / out.Seconds
	}
	return out, nil
}

// stretch is a run of consecutive saturated intervals.
type stretch struct {
	seconds        float64
	intervals      int
	ip, configured float64 // bits, bit·s
	// backlog and queued sum the readings that began its intervals, for
	// the size of the limiter's packets.
	backlog, queued uint64
	header          int // the link's, per packet
}

func (r *stretch) add(start Sample, dt, ipBits, configuredBits float64) {
	r.seconds += dt
	r.intervals++
	r.ip += ipBits
	r.configured += configuredBits
	r.header = start.header()
	if start.Queued > 0 {
		r.backlog += start.Backlog
		r.queued += start.Queued
	}
}

// long reports whether the stretch was configured to send at least n of
// its packets (frames at the wire rate, as its readings count them).
func (r *stretch) long(n float64) bool {
	pkt := float64(IPMTU + r.header)
	if r.queued > 0 {
		pkt = max(pkt, float64(r.backlog)/float64(r.queued))
	}
	return WireRate(r.configured, r.header)/8 >= n*pkt
}
