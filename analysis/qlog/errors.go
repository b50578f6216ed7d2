package qlog

import (
	"errors"
	"fmt"
)

// Sentinel errors a caller can branch on with errors.Is.
var (
	// ErrTruncated: the last record of the file stops in the middle (the
	// writer was killed before closing the connection). Everything before
	// it was read; the result built from it is valid up to that point.
	ErrTruncated = errors.New("last record is cut short (the qlog writer was probably killed)")
	// ErrEmpty: the file holds no record at all.
	ErrEmpty = errors.New("empty file, no qlog header")
	// ErrNotQlog: the first record is not a JSON-SEQ qlog header.
	ErrNotQlog = errors.New("not a JSON-SEQ qlog file")
)

// ParseError locates a problem in a qlog file: the line (1-based; records
// are one per line in every producer here), the byte offset in the file of
// the offending byte, and the JSON field when one is known.
type ParseError struct {
	File   string
	Line   int
	Offset int64
	Field  string
	Err    error
}

func (e *ParseError) Error() string {
	msg := fmt.Sprintf("%s:%d: byte %d: ", e.File, e.Line, e.Offset)
	if e.Field != "" {
		msg += e.Field + ": "
	}
	return msg + e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }

// recordError turns an error from decoding one record into a ParseError,
// with the byte offset of the failing byte where the scanner knows it.
func recordError(file string, line int, recOffset int64, err error) *ParseError {
	pe := &ParseError{File: file, Line: line, Offset: recOffset, Err: err}
	var fe *fieldError
	if errors.As(err, &fe) {
		pe.Field = fe.field
		pe.Err = fe.err
	}
	var se *syntaxError
	if errors.As(err, &se) {
		pe.Offset = recOffset + int64(se.pos)
	}
	return pe
}
