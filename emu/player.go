package emu

import (
	"time"

	"github.com/dc-emu/emu/tracefmt"
)

// Player turns a bandwidth trace into the rate changes of one link
// direction. It is pure: it takes the time elapsed since the replay started
// and returns what holds now and when the next change is due; the caller
// owns the one timer (quic-go's pacer style).
type Player struct {
	Trace *tracefmt.Trace
	Up    bool // replay the uplink column instead of the downlink one
	Loop  bool
}

// At returns the link state at elapsed: rate (bit/s), and the trace's delay
// and loss when it carries them; next is the elapsed time of the next
// change, and ok is false once a trace that does not loop has ended (the
// last step then holds).
func (p *Player) At(elapsed time.Duration) (st tracefmt.Step, rate float64, next time.Duration, ok bool) {
	s, nx, ok := p.Trace.StepAt(elapsed, p.Loop)
	if !ok {
		last := p.Trace.Steps[len(p.Trace.Steps)-1]
		return last, p.rate(last), 0, false
	}
	return s, p.rate(s), nx, true
}

func (p *Player) rate(s tracefmt.Step) float64 {
	if p.Up {
		return s.Up
	}
	return s.Down
}

// MeanRate returns the time-weighted mean rate (bit/s) over [from, to),
// for the capacity column of time series and for link utilization.
func (p *Player) MeanRate(from, to time.Duration) float64 {
	if to <= from {
		_, r, _, _ := p.At(from)
		return r
	}
	var sum float64
	t := from
	for t < to {
		_, r, next, ok := p.At(t)
		end := to
		if ok && next > t && next < to {
			end = next
		}
		sum += r * (end - t).Seconds()
		if !ok || next <= t {
			sum += r * (to - end).Seconds()
			break
		}
		t = end
	}
	return sum / (to - from).Seconds()
}

// holdPacketBits is a full-size packet at the IP layer, the size the rate
// limiter charges exactly (see Drive).
const holdPacketBits = 1500 * 8

// holdRecheck is how often Drive recomputes the hold rate during an outage.
const holdRecheck = 10 * time.Millisecond

// Drive returns what the rate limiter of the link must be set to at elapsed,
// and when to call again (wake, on the same clock). It is At, except during
// an outage (a zero-capacity step).
//
// The rate limiter is an HTB class, which sends a packet whenever the class
// has credit and charges it afterwards at the rate then in force. Set to a
// near-zero rate, the one packet that leaves as an outage starts costs HTB's
// maximum debt of 60 s, and a later rate change does not clear it: the link
// stays shut for a minute after the outage. Drive holds the link instead at
// the rate at which one full-size packet costs the rest of the outage plus
// one packet time at the rate that follows it: the packet that may cross as
// the outage starts (HTB charges after sending) shuts the class until the
// outage is over and takes the place of the first packet after it, so the
// delivered mean is kept. Drive recomputes the hold every holdRecheck, so a
// packet that arrives late in a long outage is not held past its end.
// Consecutive zero steps are one outage. An outage that lasts to the end of
// a trace that does not loop (or a trace with no capacity) is permanent, and
// Drive returns 0 for it.
func (p *Player) Drive(elapsed time.Duration) (st tracefmt.Step, rate float64, wake time.Duration, ok bool) {
	st, rate, next, ok := p.At(elapsed)
	if rate > 0 || !ok {
		return st, rate, next, ok
	}
	end, resume := next, 0.0
	for range len(p.Trace.Steps) {
		_, r, n, more := p.At(end)
		if !more {
			return st, 0, next, true
		}
		if r > 0 {
			resume = r
			break
		}
		end = n
	}
	if resume == 0 {
		return st, 0, next, true
	}
	hold := (end - elapsed).Seconds() + holdPacketBits/resume
	return st, holdPacketBits / hold, min(next, elapsed+holdRecheck), true
}
