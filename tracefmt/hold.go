package tracefmt

import "time"

// holder builds a sample-and-hold schedule from time-stamped samples: each
// sample holds until the next distinct time. Times are shifted so the first
// sample starts the trace. A repeated time keeps its first sample, which is
// how the datasets' duplicate rows are read.
type holder struct {
	steps []Step
	t0    time.Duration
	last  time.Duration // absolute time of the latest sample
	n     int           // samples added, repeats included
}

// add records s taken at absolute time at, which must not be before the
// previous sample's (callers check, to report the field). It reports
// whether s started a new step.
func (h *holder) add(at time.Duration, s Step) bool {
	h.n++
	if len(h.steps) == 0 {
		h.t0 = at
	} else if at == h.last {
		return false
	}
	h.last = at
	s.At = at - h.t0
	h.steps = append(h.steps, s)
	return true
}

// backwards reports whether at comes before the latest sample.
func (h *holder) backwards(at time.Duration) bool {
	return len(h.steps) > 0 && at < h.last
}

// endAtLast finishes a schedule whose last sample marks its end: the last
// distinct time is the duration and that sample's values are not used. It
// returns false if fewer than two distinct times were seen.
func (h *holder) endAtLast() (steps []Step, end time.Duration, ok bool) {
	if len(h.steps) < 2 {
		return nil, 0, false
	}
	n := len(h.steps) - 1
	return h.steps[:n], h.steps[n].At, true
}

// endAfterLast finishes a schedule of interval samples: the last sample
// lasts as long as the one before it (evenly spaced samples each last one
// period), or one second if it is the only one.
func (h *holder) endAfterLast() (steps []Step, end time.Duration, ok bool) {
	n := len(h.steps)
	switch n {
	case 0:
		return nil, 0, false
	case 1:
		return h.steps, time.Second, true
	}
	last := h.steps[n-1].At
	end = last + (last - h.steps[n-2].At)
	if end > MaxDuration || end < last {
		return nil, 0, false
	}
	return h.steps, end, true
}
