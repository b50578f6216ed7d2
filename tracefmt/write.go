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
	if t.HasLoss {
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
			bw.WriteString("," + strconv.FormatFloat(s.Loss, 'f', -1, 64))
		}
		bw.WriteByte('\n')
	}
	for _, s := range t.Steps {
		row(s.At, s)
	}
	row(t.End, t.Steps[len(t.Steps)-1])
	return bw.Flush()
}

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

// maxMahimahiLines bounds what WriteMahimahi writes (about 1 GB).
const maxMahimahiLines = 100_000_000
