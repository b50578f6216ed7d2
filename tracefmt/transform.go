package tracefmt

import (
	"fmt"
	"math"
	"time"
)

// Options reshape a trace before it is replayed. The zero value changes
// nothing.
type Options struct {
	// Offset skips the trace's first Offset (trace time); it must be less
	// than the trace's duration.
	Offset time.Duration
	// Duration keeps this much of the trace after Offset (trace time); 0
	// keeps the rest, and so does a Duration longer than what is left.
	Duration time.Duration
	// TimeScale stretches time: 2 makes every step last twice as long, 0.5
	// replays twice as fast. 0 means 1. Applied after the cut.
	TimeScale float64
	// RateScale multiplies every capacity (down and up); 0 means 1. Delay
	// and loss are left alone.
	RateScale float64
}

// Transform returns a new trace cut and scaled as o says; t is unchanged.
// Steps that a small TimeScale squeezes below a nanosecond disappear.
func (t *Trace) Transform(o Options) (*Trace, error) {
	ts, err := scale("time scale", o.TimeScale)
	if err != nil {
		return nil, err
	}
	rs, err := scale("rate scale", o.RateScale)
	if err != nil {
		return nil, err
	}
	if o.Offset < 0 || o.Duration < 0 {
		return nil, fmt.Errorf("trace offset %v and duration %v must not be negative", o.Offset, o.Duration)
	}
	if o.Offset >= t.End {
		return nil, fmt.Errorf("trace offset %v is not within the trace (%v long)", o.Offset, t.End)
	}
	stop := t.End
	if o.Duration > 0 && o.Duration < t.End-o.Offset {
		stop = o.Offset + o.Duration
	}
	newTime := func(d time.Duration) (time.Duration, error) {
		v := math.Round(float64(d-o.Offset) * ts)
		if v > float64(MaxDuration) {
			return 0, fmt.Errorf("time scale %g makes the trace longer than %v", ts, MaxDuration)
		}
		return time.Duration(v), nil
	}
	end, err := newTime(stop)
	if err != nil {
		return nil, err
	}
	out := &Trace{Source: t.Source, Format: t.Format, End: end, HasUp: t.HasUp, HasDelay: t.HasDelay, HasLoss: t.HasLoss, HasUpDelay: t.HasUpDelay, HasUpLoss: t.HasUpLoss}
	for i, s := range t.Steps {
		if t.stepEnd(i) <= o.Offset {
			continue
		}
		if s.At >= stop {
			break
		}
		at, err := newTime(max(s.At, o.Offset))
		if err != nil {
			return nil, err
		}
		if at >= end {
			break
		}
		s.At = at
		s.Down *= rs
		s.Up *= rs
		if s.Down > MaxRate || s.Up > MaxRate {
			return nil, fmt.Errorf("rate scale %g takes the capacity above %g bit/s", rs, float64(MaxRate))
		}
		if n := len(out.Steps); n > 0 && out.Steps[n-1].At == at {
			out.Steps[n-1] = s // the earlier step shrank to nothing
			continue
		}
		out.Steps = append(out.Steps, s)
	}
	if len(out.Steps) == 0 || end <= 0 {
		return nil, fmt.Errorf("time scale %g squeezes the trace to nothing", ts)
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

// scale checks a scale factor: 0 means 1, otherwise positive and finite.
func scale(what string, v float64) (float64, error) {
	if v == 0 {
		return 1, nil
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s %g must be positive", what, v)
	}
	return v, nil
}
