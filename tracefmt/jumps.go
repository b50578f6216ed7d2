package tracefmt

import (
	"slices"
	"time"
)

// Jumps are the times the downlink delay rises well above its usual value:
// Starlink's delay does so every 15 s, when the constellation reconfigures
// (LeoCC, SIGCOMM 2025). A rise counts when the delay exceeds the median by
// more than JumpThreshold; rises less than a second apart are one jump.
type Jumps struct {
	At        []time.Duration // start of each jump
	Threshold time.Duration   // the delay a jump exceeds
	// Period is the median time between jumps when they recur regularly
	// (at least three, each gap within 10 % of the median); 0 otherwise.
	Period time.Duration
}

// jumpMargin is how far above the median a delay must rise to be a jump:
// three times the spread between median and 95th percentile, and at least
// 5 ms, so that jitter around the median never counts.
func jumpMargin(d RateStats) time.Duration {
	ms := max(3*(d.P95-d.P50), 5)
	return time.Duration(ms * 1e6)
}

// jumps finds the delay's jumps; d is the downlink delay's statistics (in
// milliseconds).
func (t *Trace) jumps(d RateStats) Jumps {
	j := Jumps{Threshold: time.Duration(d.P50*1e6) + jumpMargin(d)}
	var last time.Duration = -time.Hour
	above := false
	for _, s := range t.Steps {
		if s.Delay > j.Threshold {
			if !above && s.At-last >= time.Second {
				j.At = append(j.At, s.At)
			}
			above, last = true, s.At
			continue
		}
		above = false
	}
	if len(j.At) < 3 {
		return j
	}
	gaps := make([]time.Duration, len(j.At)-1)
	for i := range gaps {
		gaps[i] = j.At[i+1] - j.At[i]
	}
	slices.Sort(gaps)
	med := gaps[len(gaps)/2]
	for _, g := range gaps {
		if diff := g - med; diff > med/10 || -diff > med/10 {
			return j
		}
	}
	j.Period = med
	return j
}
