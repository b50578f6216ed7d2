package tracefmt

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// Format names a trace file format.
type Format string

// The formats Read understands.
const (
	FormatRaca     Format = "raca"     // G-NetTrack CSV of the Raca et al. 4G/5G datasets
	FormatMahimahi Format = "mahimahi" // mm-link delivery opportunities (ms per 1500-byte packet)
	FormatCSV      Format = "csv"      // emu's plain CSV: time_s,down_mbps[,up_mbps[,delay_ms[,loss]]]
	FormatCooked   Format = "cooked"   // Pensieve-style "seconds Mbit/s" pairs
	FormatColumns  Format = "columns"  // any CSV with caller-named time and rate columns
	FormatDelay    Format = "delay"    // LeoReplayer's one-way delay: ms a line, one line per Step
	FormatLoss     Format = "loss"     // a loss probability a line, one line per Step
)

// Formats returns every format Read understands, in the order help texts
// show them.
func Formats() []Format {
	return []Format{FormatRaca, FormatMahimahi, FormatCSV, FormatCooked, FormatColumns, FormatDelay, FormatLoss}
}

// ParseFormat checks a format name given by a user; "" means "detect".
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	if s == "" {
		return "", nil
	}
	return "", fmt.Errorf("%w %q (want one of %v)", ErrUnknownFormat, s, Formats())
}

// Step is one constant stretch of a trace. It lasts from At until the next
// step's At (or Trace.End for the last step).
type Step struct {
	At    time.Duration // start, relative to the trace's start; Steps[0].At == 0
	Down  float64       // downlink capacity, bit/s, >= 0; 0 is an outage
	Up    float64       // uplink capacity, bit/s, >= 0; meaningful if Trace.HasUp
	Delay time.Duration // one-way delay (downlink); meaningful if Trace.HasDelay
	// UpDelay is the uplink's one-way delay, meaningful if
	// Trace.HasUpDelay; otherwise Delay is both directions' (one delay
	// column, as mm-delay's).
	UpDelay time.Duration
	Loss    float64 // loss probability in [0, 1] (downlink); meaningful if Trace.HasLoss
	// UpLoss is the uplink's loss probability, meaningful if
	// Trace.HasUpLoss; otherwise Loss is both directions' (one loss
	// column). A recording (emu record) measures each direction's loss on
	// its own, and they differ.
	UpLoss float64
}

// Trace is a piecewise-constant schedule of link capacity.
type Trace struct {
	Source string // file or shipped name it was read from, for messages and plot titles
	Format Format // format it was read from

	Steps []Step        // sorted by At, strictly increasing, Steps[0].At == 0
	End   time.Duration // end of the last step: the trace's duration (and loop period)

	HasUp, HasDelay, HasLoss bool // which optional Step fields carry data
	HasUpDelay               bool // the uplink has a delay column of its own
	HasUpLoss                bool // the uplink has a loss column of its own
}

// Limits that keep arithmetic on traces finite. Readers reject values beyond
// them, so a corrupt file cannot overflow a duration or a mean.
const (
	// MaxRate is the largest capacity accepted, in bit/s (1 Pbit/s).
	MaxRate = 1e15
	// MaxDuration is the longest trace accepted (about 73 years).
	MaxDuration = time.Duration(math.MaxInt64 / 4)
)

// ErrInvalid is wrapped by Validate's errors.
var ErrInvalid = errors.New("invalid trace")

// Validate checks the invariants every reader and Transform guarantee;
// callers that build a Trace by hand should call it.
func (t *Trace) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %s: %s", ErrInvalid, t.Source, fmt.Sprintf(format, args...))
	}
	if len(t.Steps) == 0 {
		return bad("no steps")
	}
	if t.Steps[0].At != 0 {
		return bad("first step starts at %v, not 0", t.Steps[0].At)
	}
	if t.End > MaxDuration {
		return bad("duration %v is longer than %v", t.End, MaxDuration)
	}
	for i, s := range t.Steps {
		if i > 0 && s.At <= t.Steps[i-1].At {
			return bad("step %d starts at %v, not after step %d at %v", i, s.At, i-1, t.Steps[i-1].At)
		}
		if !validRate(s.Down) || (t.HasUp && !validRate(s.Up)) {
			return bad("step %d: rate down %v up %v outside [0, %g] bit/s", i, s.Down, s.Up, MaxRate)
		}
		if t.HasDelay && s.Delay < 0 || t.HasUpDelay && s.UpDelay < 0 {
			return bad("step %d: negative delay %v (up %v)", i, s.Delay, s.UpDelay)
		}
		if t.HasLoss && !validProb(s.Loss) {
			return bad("step %d: loss %v outside [0, 1]", i, s.Loss)
		}
		if t.HasUpLoss && !validProb(s.UpLoss) {
			return bad("step %d: up loss %v outside [0, 1]", i, s.UpLoss)
		}
	}
	if last := t.Steps[len(t.Steps)-1].At; t.End <= last {
		return bad("end %v is not after the last step at %v", t.End, last)
	}
	return nil
}

func validRate(r float64) bool { return r >= 0 && r <= MaxRate }

// validProb is false for NaN too.
func validProb(p float64) bool { return p >= 0 && p <= 1 }

// Duration returns the trace's length.
func (t *Trace) Duration() time.Duration { return t.End }

// StepAt returns the step in force at d (time since the trace started) and
// the time, on the same clock as d, at which the next step begins. Without
// loop, d at or past End gives ok == false, and the last step's next is End.
// With loop the trace repeats with period End, so next is always finite.
// Negative d is treated as 0. StepAt does not allocate; the trace player
// calls it at each deadline.
func (t *Trace) StepAt(d time.Duration, loop bool) (s Step, next time.Duration, ok bool) {
	if len(t.Steps) == 0 || t.End <= 0 {
		return Step{}, 0, false
	}
	if d < 0 {
		d = 0
	}
	var base time.Duration
	if d >= t.End {
		if !loop {
			return Step{}, t.End, false
		}
		base = d - d%t.End
		d %= t.End
	}
	// The first step starting after d; the one before it is in force.
	i := sort.Search(len(t.Steps), func(i int) bool { return t.Steps[i].At > d })
	s = t.Steps[i-1]
	if i < len(t.Steps) {
		return s, base + t.Steps[i].At, true
	}
	return s, base + t.End, true
}

// stepEnd is when step i ends.
func (t *Trace) stepEnd(i int) time.Duration {
	if i+1 < len(t.Steps) {
		return t.Steps[i+1].At
	}
	return t.End
}
