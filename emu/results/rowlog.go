package results

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/dc-emu/emu/internal/invoker"
)

// rowWriter writes the rows of a per-flow CSV log through a buffer: a row
// neither allocates nor makes a system call until the buffer is full. It
// belongs to one goroutine; the first error sticks and Flush returns it.
type rowWriter struct {
	w       *bufio.Writer
	scratch []byte
	err     error
}

func newRowWriter(w io.Writer, header string) *rowWriter {
	rw := &rowWriter{w: bufio.NewWriterSize(w, 64<<10), scratch: make([]byte, 0, 128)}
	_, rw.err = rw.w.WriteString(header + "\n")
	return rw
}

// row appends fields (already formatted into b, comma-separated, without
// the newline) as one line.
func (rw *rowWriter) row(b []byte) {
	if rw.err != nil {
		return
	}
	b = append(b, '\n')
	_, rw.err = rw.w.Write(b)
	rw.scratch = b[:0]
}

// Flush writes out the buffered rows and returns the first error.
func (rw *rowWriter) Flush() error {
	if rw.err != nil {
		return rw.err
	}
	rw.err = rw.w.Flush()
	return rw.err
}

// rowReader reads a per-flow CSV log line by line, checking the header and
// the number of columns; errors are *ParseError with the file and line.
type rowReader struct {
	sc     *bufio.Scanner
	name   string
	header string
	cols   int
	line   int
	fields [][]byte
}

func newRowReader(r io.Reader, name, header string) *rowReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 4096)
	return &rowReader{sc: sc, name: name, header: header, cols: bytes.Count([]byte(header), []byte{','}) + 1}
}

// next reads the next row into rr.fields; it returns false at the end of
// the file or with an error.
func (rr *rowReader) next() (bool, error) {
	for rr.sc.Scan() {
		rr.line++
		text := bytes.TrimSuffix(rr.sc.Bytes(), []byte{'\r'})
		if rr.line == 1 {
			if string(bytes.TrimPrefix(text, []byte("\ufeff"))) != rr.header {
				return false, &ParseError{File: rr.name, Line: 1, Field: "header", Value: cut(text), Err: fmt.Errorf("%w %q", ErrHeader, rr.header)}
			}
			continue
		}
		rr.fields = bytes.Split(text, []byte{','})
		if len(rr.fields) != rr.cols {
			return false, rr.fail("", text, ErrColumns)
		}
		return true, nil
	}
	if err := rr.sc.Err(); err != nil {
		return false, &ParseError{File: rr.name, Line: rr.line + 1, Err: err}
	}
	if rr.line == 0 {
		return false, &ParseError{File: rr.name, Field: "header", Err: fmt.Errorf("empty file: %w %q", ErrHeader, rr.header)}
	}
	return false, nil
}

func (rr *rowReader) fail(field string, value []byte, err error) *ParseError {
	return &ParseError{File: rr.name, Line: rr.line, Field: field, Value: cut(value), Err: err}
}

// seconds reads column i, a decimal number of units (1: seconds, 1e-3:
// milliseconds) at least 0, to the microsecond.
func (rr *rowReader) seconds(i int, field string, unit float64) (time.Duration, error) {
	d, err := parseSeconds(rr.fields[i], unit)
	if err == nil && d < 0 {
		err = ErrRange
	}
	if err != nil {
		return 0, rr.fail(field, rr.fields[i], err)
	}
	return d, nil
}

// signedSeconds is seconds for a time that may be negative: a stamp
// before t0 on a clock stepped back, a one-way delay across clocks that
// differ, or a column read only for its syntax.
func (rr *rowReader) signedSeconds(i int, field string, unit float64) (time.Duration, error) {
	d, err := parseSeconds(rr.fields[i], unit)
	if err != nil {
		return 0, rr.fail(field, rr.fields[i], err)
	}
	return d, nil
}

// optSeconds is seconds for a column that may be empty (NaN: not measured).
func (rr *rowReader) optSeconds(i int, field string, unit float64) (time.Duration, bool, error) {
	if len(rr.fields[i]) == 0 {
		return 0, false, nil
	}
	d, err := rr.seconds(i, field, unit)
	return d, err == nil, err
}

// int reads column i as a whole number in [lo, hi].
func (rr *rowReader) int(i int, field string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(string(rr.fields[i]), 10, 64)
	if err == nil && (n < lo || n > hi) {
		err = ErrRange
	}
	if err != nil {
		return 0, rr.fail(field, rr.fields[i], err)
	}
	return n, nil
}

// appendOptMicros appends d like appendMicros, or nothing when it was not
// measured.
func appendOptMicros(b []byte, d time.Duration, ok bool, decimals int) []byte {
	if !ok {
		return b
	}
	return appendMicros(b, d, decimals)
}

// msOf is d in milliseconds.
func msOf(d time.Duration) float64 { return float64(d) / 1e6 }

// readRows reads a per-flow log of header's columns, one T per row parsed
// by parse; check, if not nil, compares a row with the one before it.
func readRows[T any](r io.Reader, name, header string, parse func(*rowReader) (T, error), check func(rr *rowReader, prev, row T) error) ([]T, error) {
	rr := newRowReader(r, name, header)
	var rows []T
	for {
		ok, err := rr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return rows, nil
		}
		row, err := parse(rr)
		if err != nil {
			return nil, err
		}
		if n := len(rows); n > 0 && check != nil {
			if err := check(rr, rows[n-1], row); err != nil {
				return nil, err
			}
		}
		rows = append(rows, row)
	}
}

// readFile opens path and reads it with read; what names the log in errors.
func readFile[T any](path, what string, read func(io.Reader, string) ([]T, error)) ([]T, error) {
	f, err := invoker.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	return read(f, path)
}
