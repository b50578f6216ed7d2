package tracefmt

import (
	"io"
	"math"
	"time"
)

// DefaultStep is the length of each value of a delay or loss series when
// ReadOptions.Step is 0: LeoReplayer records one-way delay every 10 ms.
const DefaultStep = 10 * time.Millisecond

// readSeries reads a delay (FormatDelay) or loss (FormatLoss) series: one
// number a line, line i holding for the i-th interval of length step, the
// last one ending the trace at lines × step. This is LeoReplayer's delay
// file (LeoCC, SIGCOMM 2025), which its mm-delay reads in 10 ms steps.
// A delay is in milliseconds (fractions allowed), ≥ 0; a loss is a
// probability from 0 to 1. Blank lines are skipped. The series carries no
// rate: its steps' Down is 0, and it drives a link's delay or loss beside
// whatever drives its rate. One delay column applies to both directions, as
// mm-delay's does. WriteSeries writes one direction of a trace this way.
func readSeries(r io.Reader, name string, f Format, step time.Duration) (*Trace, error) {
	if step <= 0 {
		step = DefaultStep
	}
	field := "delay_ms"
	if f == FormatLoss {
		field = "loss"
	}
	sc := newLineScanner(r, name)
	t := &Trace{HasDelay: f == FormatDelay, HasLoss: f == FormatLoss}
	var n int64
	for {
		line, ok := sc.nextBytes()
		if !ok {
			break
		}
		text := string(line)
		v, err := parseFinite(text)
		if err != nil {
			return nil, parseErr(name, sc.line, field, text, err)
		}
		var s Step
		switch {
		case v < 0:
			return nil, parseErr(name, sc.line, field, text, ErrNegative)
		case f == FormatLoss && v > 1:
			return nil, parseErr(name, sc.line, field, text, errorf(ErrOutOfRange, "a probability is between 0 and 1"))
		case f == FormatLoss:
			s.Loss = v
		default:
			// A plain decimal is read exactly, as the CSV's times are, so
			// that WriteSeries's delays read back to the nanosecond (a
			// float64 loses them beyond about 100 days, and could push a
			// delay of MaxDuration past it).
			d, exact := parseDecimalTime(text, 1e6)
			if !exact {
				if v*1e6 > float64(MaxDuration) {
					return nil, parseErr(name, sc.line, field, text, errorf(ErrOutOfRange, "more than %v", MaxDuration))
				}
				d = time.Duration(math.Round(v * 1e6))
			}
			s.Delay = d
		}
		if n >= int64(MaxDuration/step) {
			return nil, parseErr(name, sc.line, field, text, errorf(ErrOutOfRange, "the series lasts more than %v", MaxDuration))
		}
		s.At = time.Duration(n) * step
		n++
		// Runs of one value are one step: a 120 s series of mostly equal
		// delays stays small, and the player wakes only on changes.
		if k := len(t.Steps); k > 0 && sameValues(t.Steps[k-1], s) {
			continue
		}
		t.Steps = append(t.Steps, s)
	}
	if err := sc.err(); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, parseErr(name, sc.line+1, field, "", ErrEmpty)
	}
	t.End = time.Duration(n) * step
	return t, nil
}

// WithImpairments returns t with the delay and loss of imp laid over it:
// steps begin wherever either trace changes, t's rates and imp's delay
// (when imp carries delay) and loss (when it carries loss) hold in each,
// each with the uplink's column where imp has one, and the result lasts as
// long as t. Where imp ends before t, its last values hold. Load pairs a
// Mahimahi rate file with the LeoReplayer delay file beside it this way
// (LeoReplayer's own example traces differ in length by 62 ms).
func (t *Trace) WithImpairments(imp *Trace) *Trace {
	out := &Trace{Source: t.Source, Format: t.Format, End: t.End, HasUp: t.HasUp,
		HasDelay: t.HasDelay || imp.HasDelay, HasLoss: t.HasLoss || imp.HasLoss,
		HasUpDelay: imp.HasDelay && imp.HasUpDelay || !imp.HasDelay && t.HasUpDelay,
		HasUpLoss:  imp.HasLoss && imp.HasUpLoss || !imp.HasLoss && t.HasUpLoss}
	i, j := 0, 0 // the steps of t and imp in force at at
	var at time.Duration
	for {
		s := t.Steps[i]
		s.At = at
		if imp.HasDelay {
			s.Delay, s.UpDelay = imp.Steps[j].Delay, imp.Steps[j].UpDelay
		}
		if imp.HasLoss {
			s.Loss, s.UpLoss = imp.Steps[j].Loss, imp.Steps[j].UpLoss
		}
		if k := len(out.Steps); k == 0 || !sameValues(out.Steps[k-1], s) {
			out.Steps = append(out.Steps, s)
		}
		next := t.End
		if i+1 < len(t.Steps) {
			next = t.Steps[i+1].At
		}
		if j+1 < len(imp.Steps) && imp.Steps[j+1].At < next {
			next = imp.Steps[j+1].At
		}
		if next >= t.End {
			return out
		}
		if i+1 < len(t.Steps) && t.Steps[i+1].At == next {
			i++
		}
		if j+1 < len(imp.Steps) && imp.Steps[j+1].At == next {
			j++
		}
		at = next
	}
}

// sameValues reports whether two steps hold the same rates, delays and
// losses, wherever they start.
func sameValues(a, b Step) bool {
	b.At = a.At
	return a == b
}
