package tracefmt

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// MahimahiPacketBits is what one Mahimahi delivery opportunity carries: one
// 1500-byte packet (the mahimahi README's MTU; mm-link counts 1504 with its
// TUN header, which the rate here leaves out).
const MahimahiPacketBits = 1500 * 8

// window is one non-empty averaging window: its index and packet count.
type window struct {
	k int64
	n int64
}

// readMahimahi reads one mm-link trace: one non-negative integer per line,
// the millisecond at which one packet may leave, non-decreasing. Blank lines
// are skipped. The trace lasts until the last timestamp (mm-link loops with
// that period); packets are counted in windows of length w, aligned at 0,
// and each window becomes a step of count × 12000 bit / window length. The
// packets at the very end go into the last window, so the mean rate is
// exactly lines × 12000 / last. Memory grows with the number of lines, not
// with the timestamps: runs of empty windows become one zero step.
func readMahimahi(r io.Reader, name string, w time.Duration) (*Trace, error) {
	sc := newLineScanner(r, name)
	var (
		wins     []window
		last     int64 = -1
		lastLine int
	)
	for {
		line, ok := sc.nextBytes()
		if !ok {
			break
		}
		ms, ok := parseMillis(line)
		if !ok {
			text := string(line)
			var err error
			if ms, err = strconv.ParseUint(text, 10, 63); err != nil {
				if _, ierr := strconv.ParseInt(text, 10, 64); ierr == nil && strings.HasPrefix(text, "-") {
					err = ErrNegative
				}
				return nil, parseErr(name, sc.line, "time", text, numErr(err))
			}
		}
		if ms > uint64(MaxDuration/time.Millisecond) {
			return nil, parseErr(name, sc.line, "time", string(line), errorf(ErrOutOfRange, "more than %v", MaxDuration))
		}
		t := int64(ms)
		if t < last {
			return nil, parseErr(name, sc.line, "time", string(line), errorf(ErrNotMonotonic, "previous line: %d", last))
		}
		last, lastLine = t, sc.line
		k := int64(time.Duration(t)*time.Millisecond) / int64(w)
		if n := len(wins); n > 0 && wins[n-1].k == k {
			wins[n-1].n++
		} else {
			wins = append(wins, window{k: k, n: 1})
		}
	}
	if err := sc.err(); err != nil {
		return nil, err
	}
	if len(wins) == 0 {
		return nil, parseErr(name, sc.line+1, "time", "", ErrEmpty)
	}
	end := time.Duration(last) * time.Millisecond
	if end == 0 {
		return nil, parseErr(name, lastLine, "time", strconv.FormatInt(last, 10),
			errorf(ErrZeroDuration, "the last timestamp is the loop period and must be above 0"))
	}
	steps, err := windowSteps(wins, w, end)
	if err != nil {
		return nil, parseErr(name, lastLine, "time", "", err)
	}
	return &Trace{Steps: steps, End: end}, nil
}

// windowSteps turns packet counts per window into steps over [0, end).
func windowSteps(wins []window, w, end time.Duration) ([]Step, error) {
	// A window starting exactly at end holds the packets stamped with the
	// last timestamp; they belong to the window before it.
	if n := len(wins); time.Duration(wins[n-1].k)*w >= end {
		if n > 1 && wins[n-2].k == wins[n-1].k-1 {
			wins[n-2].n += wins[n-1].n
			wins = wins[:n-1]
		} else {
			wins[n-1].k--
		}
	}
	var steps []Step
	put := func(at time.Duration, rate float64) {
		if n := len(steps); n > 0 && steps[n-1].Down == rate {
			return
		}
		steps = append(steps, Step{At: at, Down: rate})
	}
	var cur time.Duration
	for _, win := range wins {
		start := time.Duration(win.k) * w
		if start > cur {
			put(cur, 0)
		}
		stop := min(start+w, end)
		rate := float64(win.n) * MahimahiPacketBits / (stop - start).Seconds()
		if rate > MaxRate {
			return nil, errorf(ErrOutOfRange, "%d packets in the %v window at %v exceed %g bit/s", win.n, w, start, float64(MaxRate))
		}
		put(start, rate)
		cur = stop
	}
	if cur < end {
		put(cur, 0)
	}
	return steps, nil
}

// parseMillis reads a line of decimal digits without allocating (a trace
// has hundreds of thousands of lines); ok is false for anything else, which
// readMahimahi then reads with strconv, to accept it or explain it.
func parseMillis(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// readMahimahiPair reads a Mahimahi downlink trace and, if o.Up is set, the
// uplink trace that goes with it.
func readMahimahiPair(r io.Reader, name string, o ReadOptions) (*Trace, error) {
	w := o.Window
	if w == 0 {
		w = DefaultWindow
	}
	if w < time.Millisecond || w%time.Millisecond != 0 || w > MaxDuration {
		return nil, fmt.Errorf("%s: Mahimahi window %v must be a whole number of milliseconds (the format's resolution)", name, w)
	}
	down, err := readMahimahi(r, name, w)
	if err != nil || o.Up == nil {
		return down, err
	}
	upName := o.UpName
	if upName == "" {
		upName = name + " (uplink)"
	}
	up, err := readMahimahi(o.Up, upName, w)
	if err != nil {
		return nil, err
	}
	t, err := zipLinks(down, up)
	if err != nil {
		return nil, fmt.Errorf("%s with %s: %w", name, upName, err)
	}
	return t, nil
}

// maxZipSteps bounds the steps zipLinks may walk when it loops the
// shorter of two traces.
const maxZipSteps = 10_000_000

// zipLinks joins a downlink and an uplink trace (using each one's Down) into
// one trace with HasUp. Each direction loops on its own period, as in
// mm-link, so the shorter one repeats until the longer one ends.
func zipLinks(down, up *Trace) (*Trace, error) {
	end := max(down.End, up.End)
	t := &Trace{End: end, HasUp: true}
	for at, i := time.Duration(0), 0; at < end; i++ {
		if i >= maxZipSteps {
			return nil, fmt.Errorf("downlink (%v) and uplink (%v) differ so much in length that looping the shorter takes over %d steps", down.End, up.End, maxZipSteps)
		}
		d, nd, _ := down.StepAt(at, true)
		u, nu, _ := up.StepAt(at, true)
		if n := len(t.Steps); n == 0 || t.Steps[n-1].Down != d.Down || t.Steps[n-1].Up != u.Down {
			t.Steps = append(t.Steps, Step{At: at, Down: d.Down, Up: u.Down})
		}
		at = min(nd, nu, end)
	}
	return t, nil
}
