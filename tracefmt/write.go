package tracefmt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// WriteCSV writes t as emu's plain CSV (see the package doc and readCSV):
// a header naming the columns t has, one row per step, and a last row at
// t.End that repeats the last step's values. Times are exact to the
// nanosecond, so ReadCSV gives back the same steps.
func WriteCSV(w io.Writer, t *Trace) error {
	if err := t.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	cols := []string{colTime, colDown}
	if t.HasUp {
		cols = append(cols, colUp)
	}
	split := t.HasDelay && t.HasUpDelay
	switch {
	case split:
		cols = append(cols, colDownDelay, colUpDelay)
	case t.HasDelay:
		cols = append(cols, colDelay)
	}
	splitLoss := t.HasLoss && t.HasUpLoss
	switch {
	case splitLoss:
		cols = append(cols, colDownLoss, colUpLoss)
	case t.HasLoss:
		cols = append(cols, colLoss)
	}
	bw.WriteString(strings.Join(cols, ",") + "\n")
	row := func(at time.Duration, s Step) {
		bw.WriteString(formatSeconds(at))
		bw.WriteString("," + formatMbps(s.Down))
		if t.HasUp {
			bw.WriteString("," + formatMbps(s.Up))
		}
		if t.HasDelay {
			bw.WriteString("," + formatFixed(int64(s.Delay), 6))
		}
		if split {
			bw.WriteString("," + formatFixed(int64(s.UpDelay), 6))
		}
		if t.HasLoss {
			bw.WriteString("," + formatProb(s.Loss))
		}
		if splitLoss {
			bw.WriteString("," + formatProb(s.UpLoss))
		}
		bw.WriteByte('\n')
	}
	for _, s := range t.Steps {
		row(s.At, s)
	}
	row(t.End, t.Steps[len(t.Steps)-1])
	return bw.Flush()
}

// formatProb prints a loss probability with as many digits as reading it
// back needs, no more.
func formatProb(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// WriteMahimahi writes one direction of t (the uplink if up) as mm-link
// delivery opportunities: one line per 1500-byte packet, the millisecond
// at which it may leave. A packet's time is the millisecond m such that the
// trace finishes delivering its 1500 bytes in (m, m+1], so that reading the
// output back with windows of whole milliseconds gives the same count in
// every window. The last line is the trace's
// duration in milliseconds (mm-link's loop period), so the last packet is
// moved there; the mean rate is kept to within one packet per period.
func WriteMahimahi(w io.Writer, t *Trace, up bool) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if up && !t.HasUp {
		return fmt.Errorf("%s: trace has no uplink to write", t.Source)
	}
	endMs := int64(math.Round(float64(t.End) / float64(time.Millisecond)))
	if endMs < 1 {
		return fmt.Errorf("%s: a Mahimahi trace lasts at least 1 ms, this one %v", t.Source, t.End)
	}
	rateOf := func(s Step) float64 {
		if up {
			return s.Up
		}
		return s.Down
	}
	var bitsTotal float64
	for i, s := range t.Steps {
		bitsTotal += rateOf(s) * (t.stepEnd(i) - s.At).Seconds()
	}
	if bitsTotal/MahimahiPacketBits > maxMahimahiLines {
		return fmt.Errorf("%s: trace would take %.3g Mahimahi lines, more than %d", t.Source, bitsTotal/MahimahiPacketBits, maxMahimahiLines)
	}
	bw := bufio.NewWriter(w)
	var (
		carry   float64 // bits delivered towards the next packet
		pending = int64(-1)
	)
	// Each packet is written when the next is known, so that the last one
	// can move to the end.
	emit := func(ms int64) {
		if pending >= 0 {
			bw.WriteString(strconv.FormatInt(pending, 10))
			bw.WriteByte('\n')
		}
		pending = ms
	}
	for i, s := range t.Steps {
		rate := rateOf(s)
		if rate == 0 {
			continue
		}
		a := float64(s.At) / float64(time.Millisecond)
		b := float64(t.stepEnd(i)) / float64(time.Millisecond)
		perMs := rate / 1000 // bits per ms
		n := math.Floor((carry + perMs*(b-a)) / MahimahiPacketBits)
		for k := 1.0; k <= n; k++ {
			at := a + (k*MahimahiPacketBits-carry)/perMs
			emit(min(max(int64(math.Floor(at-1e-9)), 0), endMs))
		}
		carry += perMs*(b-a) - n*MahimahiPacketBits
	}
	if pending < 0 {
		return errors.New(t.Source + ": trace delivers less than one packet; Mahimahi cannot express it")
	}
	pending = endMs // the last packet marks the loop period
	emit(-1)
	return bw.Flush()
}

// WriteSeries writes one direction's one-way delay (f == FormatDelay, in
// milliseconds) or loss probability (f == FormatLoss) of t as a series, the
// format LeoReplayer records delay in: one value a line, line k holding the
// value in force at k × step (step 0 means DefaultStep, as for
// ReadOptions.Step). The trace is piecewise constant, so sampling each
// step's start loses nothing when its changes fall on whole steps; a change
// within a step shows from the next step's start (and one that does not
// last until then, not at all). There are as many lines as it takes to
// cover t (the last may run past t.End), so reading the output back with
// the same step gives back every sampled value: losses exactly, delays to
// the nanosecond. A delay has as many decimals as it needs and none when
// it is whole milliseconds, which is what LeoReplayer's own mm-delay reads
// (it parses each line with stoi, dropping a fraction).
//
// The uplink (up) writes UpDelay or UpLoss where t has that column of its
// own, and otherwise the one column both directions share (mm-delay's
// rule). A trace without the column asked for is an error: emu record
// writes one file a direction and must not write a series of zeros.
func WriteSeries(w io.Writer, t *Trace, f Format, up bool, step time.Duration) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if step < 0 {
		return fmt.Errorf("%s: series step %v must not be negative", t.Source, step)
	}
	if step == 0 {
		step = DefaultStep
	}
	var value func(Step) string
	switch f {
	case FormatDelay:
		if !t.HasDelay {
			return fmt.Errorf("%s: trace carries no delay to write as a %s series", t.Source, f)
		}
		ownUp := up && t.HasUpDelay
		delay := func(s Step) time.Duration {
			if ownUp {
				return s.UpDelay
			}
			return s.Delay
		}
		for i, s := range t.Steps {
			if d := delay(s); d > MaxDuration {
				return fmt.Errorf("%s: step %d: delay %v is longer than a series can hold (%v)", t.Source, i, d, MaxDuration)
			}
		}
		value = func(s Step) string { return formatFixed(int64(delay(s)), 6) }
	case FormatLoss:
		if !t.HasLoss {
			return fmt.Errorf("%s: trace carries no loss to write as a %s series", t.Source, f)
		}
		ownUp := up && t.HasUpLoss
		value = func(s Step) string {
			if ownUp {
				return formatProb(s.UpLoss)
			}
			return formatProb(s.Loss)
		}
	default:
		return fmt.Errorf("%s: WriteSeries writes a %s or %s series, not %q", t.Source, FormatDelay, FormatLoss, f)
	}
	lines := int64(t.End / step)
	if t.End%step != 0 {
		lines++
	}
	if lines > maxSeriesLines {
		return fmt.Errorf("%s: %v in steps of %v would take %d lines, more than %d", t.Source, t.End, step, lines, maxSeriesLines)
	}
	if lines > int64(MaxDuration/step) {
		return fmt.Errorf("%s: %v rounded up to whole steps of %v is longer than a trace may last (%v)", t.Source, t.End, step, MaxDuration)
	}
	bw := bufio.NewWriter(w)
	i := 0 // the step in force at the line's start
	for k := range lines {
		at := time.Duration(k) * step
		for i+1 < len(t.Steps) && t.Steps[i+1].At <= at {
			i++
		}
		bw.WriteString(value(t.Steps[i]))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// maxSeriesLines bounds what WriteSeries writes (about 1 GB).
const maxSeriesLines = 100_000_000

// maxMahimahiLines bounds what WriteMahimahi writes (about 1 GB).
const maxMahimahiLines = 100_000_000
