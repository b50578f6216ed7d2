package tracefmt

import (
	"io"
	"strings"
)

// readCooked reads a "cooked" trace as ABR research (Pensieve and its
// successors) uses them: per line a time in seconds and a throughput in
// Mbit/s, separated by white space, no header, irregularly spaced. Each
// sample holds until the next; the last line's time ends the trace (the
// same time-weighted reading as the traces' published means). Times are
// taken relative to the first line and must not go backwards; a repeated
// time keeps its first sample.
func readCooked(r io.Reader, name string) (*Trace, error) {
	sc := newLineScanner(r, name)
	var h holder
	for {
		text, ok := sc.next()
		if !ok {
			break
		}
		f := strings.Fields(text)
		if len(f) != 2 {
			return nil, parseErr(name, sc.line, "", "", errorf(ErrFieldCount, "%d fields, want 2 (seconds, Mbit/s)", len(f)))
		}
		at, err := parseTime(f[0], 1e9)
		if err != nil {
			return nil, parseErr(name, sc.line, "time", f[0], err)
		}
		if h.backwards(at) {
			return nil, parseErr(name, sc.line, "time", f[0], errorf(ErrNotMonotonic, "previous line: %s s", formatSeconds(h.last)))
		}
		rate, err := parseRate(f[1], 1e6)
		if err != nil {
			return nil, parseErr(name, sc.line, "rate", f[1], err)
		}
		h.add(at, Step{Down: rate})
	}
	if err := sc.err(); err != nil {
		return nil, err
	}
	if h.n == 0 {
		return nil, parseErr(name, sc.line+1, "time", "", ErrEmpty)
	}
	steps, end, ok := h.endAtLast()
	if !ok {
		return nil, parseErr(name, sc.line, "time", "", errorf(ErrZeroDuration, "the last line's time ends the trace; need two distinct times"))
	}
	return &Trace{Steps: steps, End: end}, nil
}
