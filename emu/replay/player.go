package replay

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
		return last, p.Rate(last), 0, false
	}
	return s, p.Rate(s), nx, true
}

// Rate is a step's rate in the direction the player replays.
func (p *Player) Rate(s tracefmt.Step) float64 {
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

// DriveLead is how far ahead of the trace Drive runs: each rate is set
// this long before its step begins. HTB sends a packet the moment its class
// has credit and charges it at the rate then in force. With a saturated
// queue and steps that carry whole packets (Mahimahi windows) the class's
// next send falls right on the step boundary, so a rate that comes even
// 100 µs after it charges that packet at the old rate: after a one-packet
// window, a whole 10 ms window is lost. Coming early charges the packets
// sent in the lead at the new rate instead, so the lead is kept just above
// the player's usual lateness (nanosleep wake-up and the netlink call,
// about 0.1-0.2 ms here). BenchmarkTraceReplay measures the result.
const DriveLead = 300 * time.Microsecond

// HoldPacketBits is a full-size packet at the IP layer, the size the rate
// limiter charges exactly (see Drive).
const HoldPacketBits = 1500 * 8

// HoldRecheck is how long a hold rate stays set with left of the outage
// to go: a packet let go later than the hold was computed is held that much
// past the end, so a tenth of what is left, between 1 and 10 ms.
func HoldRecheck(left time.Duration) time.Duration {
	return min(max(left/10, time.Millisecond), 10*time.Millisecond)
}

// Drive returns what the rate limiter of the link must be set to at elapsed,
// and when to call again (wake, on the same clock); ok is false once a trace
// that does not loop has ended (the last step then holds). It is At a
// little ahead of time (DriveLead), except during an outage (a
// zero-capacity step).
//
// HTB charges a packet after sending it. Set to a near-zero rate, the one
// packet that leaves as an outage starts costs HTB's maximum debt of 60 s,
// and a later rate change does not clear it: the link stays shut for a
// minute after the outage. Drive holds the link instead at the rate at
// which one full-size packet costs the rest of the outage plus one packet
// time at the rate that follows it: the packet that may cross as the outage
// starts shuts the class until the outage is over and takes the place of
// the first packet after it, so the delivered mean is kept. The hold is
// recomputed as the outage goes on (HoldRecheck), so a packet that arrives
// late in a long outage is not held much past its end. Consecutive zero
// steps are one outage. An outage that lasts to the end of a trace that
// does not loop (or a trace with no capacity) is permanent, and Drive
// returns 0 for it.
func (p *Player) Drive(elapsed time.Duration) (st tracefmt.Step, rate float64, wake time.Duration, ok bool) {
	st, rate, next, ok := p.At(elapsed + DriveLead)
	if !ok {
		return st, rate, 0, false
	}
	wake = next - DriveLead
	if rate > 0 {
		return st, rate, wake, true
	}
	end, resume := next, 0.0
	for range len(p.Trace.Steps) {
		_, r, n, more := p.At(end)
		if !more {
			return st, 0, wake, true
		}
		if r > 0 {
			resume = r
			break
		}
		end = n
	}
	if resume == 0 {
		return st, 0, wake, true
	}
	left := end - elapsed
	hold := left.Seconds() + HoldPacketBits/resume
	return st, HoldPacketBits / hold, min(wake, elapsed+HoldRecheck(left)), true
}

// Schedule is what drives one link direction over time: its rate (nil
// where constant) and its delay and loss (nil where both are constant).
type Schedule struct {
	Rate   *Player
	Impair *Impairments
}
