package results

import (
	"errors"
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

// OWDWriter writes a one-way delay log; see rowWriter for its costs.
type OWDWriter struct{ rw *rowWriter }

// NewOWDWriter starts a log on w with the header line.
func NewOWDWriter(w io.Writer) *OWDWriter { return &OWDWriter{newRowWriter(w, OWDHeader)} }

// Write appends one row. Times are written to the microsecond.
func (w *OWDWriter) Write(r OWDRow) {
	b := appendMicros(w.rw.scratch[:0], r.T, 6)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.Offset, 10)
	b = append(b, ',')
	b = appendMicros(b, r.OWD, 3)
	w.rw.row(b)
}

// Flush writes out the buffered rows and returns the first error.
func (w *OWDWriter) Flush() error { return w.rw.Flush() }

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
	return readRows(r, name, OWDHeader, func(rr *rowReader) (row OWDRow, err error) {
		if row.T, err = rr.signedSeconds(0, "t_s", 1); err != nil {
			return row, err
		}
		if row.Offset, err = rr.int(1, "offset", 0, math.MaxInt64); err != nil {
			return row, err
		}
		row.OWD, err = rr.signedSeconds(2, "owd_ms", 1e-3)
		return row, err
	}, func(rr *rowReader, prev, row OWDRow) error {
		switch {
		case row.Offset <= prev.Offset:
			return &ParseError{File: rr.name, Line: rr.line, Field: "offset", Value: strconv.FormatInt(row.Offset, 10), Err: ErrBackwards}
		case row.T < prev.T:
			return &ParseError{File: rr.name, Line: rr.line, Field: "t_s", Value: row.T.String(), Err: ErrBackwards}
		}
		return nil
	})
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
