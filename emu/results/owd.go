package results

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// OWDHeader is the first line of a one-way delay log: one row per send
// stamp a client read. t_s is the read time in seconds since the run's t0
// (microseconds), offset the stamp's byte offset in the response body,
// owd_ms the read time minus the stamp's send time in milliseconds
// (microseconds).
const OWDHeader = "t_s,offset,owd_ms"

// OWDRow is one stamp a client read: when, where in the body, and how long
// after the server handed it to its transport.
type OWDRow struct {
	T      time.Duration // read time since t0
	Offset int64         // body offset of the stamp
	OWD    time.Duration // read time minus send time
}

// OWDWriter writes a one-way delay log through a buffer. Write neither
// allocates nor makes a system call until the buffer is full; it belongs to
// one goroutine. The first error sticks and is returned by Flush.
type OWDWriter struct {
	w       *bufio.Writer
	scratch [64]byte
	err     error
}

// NewOWDWriter starts a log on w with the header line.
func NewOWDWriter(w io.Writer) *OWDWriter {
	ow := &OWDWriter{w: bufio.NewWriterSize(w, 64<<10)}
	_, ow.err = ow.w.WriteString(OWDHeader + "\n")
	return ow
}

// Write appends one row. Times are written to the microsecond.
func (ow *OWDWriter) Write(r OWDRow) {
	if ow.err != nil {
		return
	}
	b := appendMicros(ow.scratch[:0], r.T, 6)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.Offset, 10)
	b = append(b, ',')
	b = appendMicros(b, r.OWD, 3)
	b = append(b, '\n')
	_, ow.err = ow.w.Write(b)
}

// Flush writes out the buffered rows and returns the first error.
func (ow *OWDWriter) Flush() error {
	if ow.err != nil {
		return ow.err
	}
	ow.err = ow.w.Flush()
	return ow.err
}

// appendMicros appends d rounded to the microsecond as a decimal number of
// seconds (decimals 6) or milliseconds (decimals 3), without floating point
// so that what Write writes reads back exactly.
func appendMicros(b []byte, d time.Duration, decimals int) []byte {
	us := d.Round(time.Microsecond).Microseconds()
	if us < 0 {
		b = append(b, '-')
		us = -us // |MinInt64/1000| fits
	}
	unit := int64(1_000_000)
	if decimals == 3 {
		unit = 1000
	}
	b = strconv.AppendInt(b, us/unit, 10)
	b = append(b, '.')
	frac := us % unit
	for u := unit / 10; u > 0; u /= 10 {
		b = append(b, byte('0'+frac/u))
		frac %= u
	}
	return b
}

// ReadOWDFile reads the one-way delay log at path.
func ReadOWDFile(path string) ([]OWDRow, error) { return readFile(path, "owd log", ReadOWD) }

// Errors a ParseError of a one-way delay log wraps.
var (
	ErrHeader    = errors.New("not the expected header")
	ErrColumns   = errors.New("wrong number of columns")
	ErrRange     = errors.New("out of range")
	ErrBackwards = errors.New("goes backwards")
)

// maxOWDSeconds bounds t_s and owd_ms: a run is far shorter than this, and
// bounded values convert to time.Duration without overflow.
const maxOWDSeconds = 1e8

// ReadOWD reads a one-way delay log; name is the file name errors give.
// Rows must have offsets that increase and read times that do not
// decrease, as the client writes them; the first bad line is reported as a
// *ParseError.
func ReadOWD(r io.Reader, name string) ([]OWDRow, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 4096)
	var rows []OWDRow
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSuffix(sc.Bytes(), []byte{'\r'})
		if line == 1 {
			if string(bytes.TrimPrefix(text, []byte("\ufeff"))) != OWDHeader {
				return nil, &ParseError{File: name, Line: 1, Field: "header", Value: cut(text), Err: fmt.Errorf("%w %q", ErrHeader, OWDHeader)}
			}
			continue
		}
		if len(text) == 0 {
			return nil, &ParseError{File: name, Line: line, Err: ErrColumns}
		}
		row, perr := parseOWDRow(text)
		if perr != nil {
			perr.File, perr.Line = name, line
			return nil, perr
		}
		if n := len(rows); n > 0 {
			switch prev := rows[n-1]; {
			case row.Offset <= prev.Offset:
				return nil, &ParseError{File: name, Line: line, Field: "offset", Value: strconv.FormatInt(row.Offset, 10), Err: ErrBackwards}
			case row.T < prev.T:
				return nil, &ParseError{File: name, Line: line, Field: "t_s", Value: row.T.String(), Err: ErrBackwards}
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: name, Line: line + 1, Err: err}
	}
	if line == 0 {
		return nil, &ParseError{File: name, Field: "header", Err: fmt.Errorf("empty file: %w %q", ErrHeader, OWDHeader)}
	}
	return rows, nil
}

func parseOWDRow(text []byte) (OWDRow, *ParseError) {
	var f [3][]byte
	rest := text
	for i := range f {
		var ok bool
		f[i], rest, ok = bytes.Cut(rest, []byte{','})
		if ok == (i == len(f)-1) {
			return OWDRow{}, &ParseError{Value: cut(text), Err: ErrColumns}
		}
	}
	t, err := parseSeconds(f[0], 1)
	if err != nil {
		return OWDRow{}, &ParseError{Field: "t_s", Value: cut(f[0]), Err: err}
	}
	off, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err == nil && off < 0 {
		err = ErrRange
	}
	if err != nil {
		return OWDRow{}, &ParseError{Field: "offset", Value: cut(f[1]), Err: err}
	}
	owd, err := parseSeconds(f[2], 1e-3)
	if err != nil {
		return OWDRow{}, &ParseError{Field: "owd_ms", Value: cut(f[2]), Err: err}
	}
	return OWDRow{T: t, Offset: off, OWD: owd}, nil
}

// parseSeconds reads a decimal number of units (1 for seconds, 1e-3 for
// milliseconds) as a duration rounded to the microsecond.
func parseSeconds(b []byte, unit float64) (time.Duration, error) {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.Abs(v*unit) > maxOWDSeconds {
		return 0, ErrRange
	}
	return time.Duration(math.Round(v*unit*1e6)) * time.Microsecond, nil
}
