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
