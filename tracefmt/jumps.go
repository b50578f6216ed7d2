package tracefmt

import (
	"slices"
	"time"
)

// Jumps are the times the downlink delay rises well above its usual value:
// Starlink's delay does so every 15 s, when the constellation reconfigures
// (LeoCC, SIGCOMM 2025). A rise counts when the delay exceeds the median by
// more than JumpThreshold's margin; rises less than a second apart are one
// jump.
type Jumps struct {
	At        []time.Duration // start of each jump
	Threshold time.Duration   // the delay a jump exceeds
	// Period is the median time between jumps when they recur regularly
	// (at least three, each gap within 10 % of the median); 0 otherwise.
	Period time.Duration
}

// JumpThreshold is the delay a jump exceeds, for a delay whose statistics
// (in milliseconds) are d: the median plus three times the spread between
// median and 95th percentile, and at least 5 ms above the median, so that
// jitter around the median never counts.
func JumpThreshold(d RateStats) time.Duration {
	ms := d.P50 + max(3*(d.P95-d.P50), 5)
	return time.Duration(ms * 1e6)
}

// JumpScan finds the jumps of a delay series fed to it in time order: the
// steps of a trace (Trace.Stats) or of a replay that loops or starts at an
// offset (replay.Impairments), so both apply one rule.
type JumpScan struct {
	j     Jumps
	last  time.Duration
	above bool
}

// NewJumpScan starts a scan for rises above threshold.
func NewJumpScan(threshold time.Duration) *JumpScan {
	return &JumpScan{j: Jumps{Threshold: threshold}, last: -time.Hour}
}

// Observe feeds the delay that holds from at on.
func (s *JumpScan) Observe(at, delay time.Duration) {
	if delay <= s.j.Threshold {
		s.above = false
		return
	}
	if !s.above && at-s.last >= time.Second {
		s.j.At = append(s.j.At, at)
	}
	s.above, s.last = true, at
}

// Jumps returns the jumps observed so far, with their period if regular.
func (s *JumpScan) Jumps() Jumps {
	j := s.j
	j.At = slices.Clone(j.At)
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

// jumps finds the delay's jumps; d is the downlink delay's statistics (in
// milliseconds).
func (t *Trace) jumps(d RateStats) Jumps {
	s := NewJumpScan(JumpThreshold(d))
	for _, st := range t.Steps {
		s.Observe(st.At, st.Delay)
	}
	return s.Jumps()
}
