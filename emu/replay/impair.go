package replay

import (
	"strings"
	"time"

	"github.com/dc-emu/emu/tracefmt"
)

// Impairments turns delay and loss traces into the changes of one link
// direction's delay line, as Player does for its rate. A nil trace leaves
// that parameter at the direction's constant. Each trace keeps its own
// length (and loop period); both run on the replay's one clock, the rate
// player's too.
type Impairments struct {
	Delay *tracefmt.Trace // drives the one-way delay; nil: constant
	Loss  *tracefmt.Trace // drives the loss probability; nil: constant
	Up    bool            // the uplink's delay and loss columns, where a trace has its own
	Loop  bool
}

// At returns the delay and loss in force at elapsed (0 for a nil trace),
// when the next change of either is due, and ok = false once every trace
// has ended without loop (their last steps then hold).
func (im *Impairments) At(elapsed time.Duration) (delay time.Duration, loss float64, next time.Duration, ok bool) {
	if im.Delay != nil {
		s, nx, live := at(im.Delay, elapsed, im.Loop)
		delay = s.Delay
		if im.Up && im.Delay.HasUpDelay {
			delay = s.UpDelay
		}
		next, ok = nx, live
	}
	if im.Loss != nil {
		s, nx, live := at(im.Loss, elapsed, im.Loop)
		loss = s.Loss
		if im.Up && im.Loss.HasUpLoss {
			loss = s.UpLoss
		}
		if live && (!ok || nx < next) {
			next = nx
		}
		ok = ok || live
	}
	return delay, loss, next, ok
}

// MeanDelay is the time-weighted mean delay over [from, to) of a schedule
// with a delay trace, for timeseries.csv's bins.
func (im *Impairments) MeanDelay(from, to time.Duration) time.Duration {
	if im.Delay == nil || to <= from {
		d, _, _, _ := im.At(from)
		return d
	}
	var sum float64
	for t := from; t < to; {
		d, _, next, ok := im.At(t)
		end := to
		if ok && next > t && next < to {
			end = next
		}
		sum += float64(d) * float64(end-t)
		t = end
	}
	return time.Duration(sum / float64(to-from))
}

// Jumps are the delay trace's jumps as played over [0, to): with the
// replay's offset and loop, at times since the epoch, so a run's figures
// can mark them (tracefmt.Jumps has the rule). Zero without a delay trace.
func (im *Impairments) Jumps(to time.Duration) tracefmt.Jumps {
	if im.Delay == nil {
		return tracefmt.Jumps{}
	}
	st := im.Delay.Stats()
	d := st.Delay
	if im.Up && st.HasUpDelay {
		d = st.UpDelay
	}
	s := tracefmt.NewJumpScan(tracefmt.JumpThreshold(d))
	for t := time.Duration(0); t < to; {
		delay, _, next, ok := im.At(t)
		s.Observe(t, delay)
		if !ok || next <= t {
			break
		}
		t = next
	}
	return s.Jumps()
}

// String says which traces drive: "delay from starlink-leoreplayer-example.bw".
func (im *Impairments) String() string {
	var parts []string
	if im.Delay != nil {
		parts = append(parts, "delay from "+im.Delay.Source)
	}
	if im.Loss != nil {
		parts = append(parts, "loss from "+im.Loss.Source)
	}
	return strings.Join(parts, ", ")
}

// at is StepAt with the last step holding once a trace has ended.
func at(t *tracefmt.Trace, elapsed time.Duration, loop bool) (tracefmt.Step, time.Duration, bool) {
	s, next, ok := t.StepAt(elapsed, loop)
	if !ok {
		return t.Steps[len(t.Steps)-1], 0, false
	}
	return s, next, true
}
