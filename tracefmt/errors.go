package tracefmt

import (
	"errors"
	"fmt"
	"strconv"
)

// Reasons a reader rejects a file, wrapped in a *ParseError; test with
// errors.Is.
var (
	ErrEmpty           = errors.New("trace is empty")
	ErrMissingColumn   = errors.New("column not found in header")
	ErrUnknownColumn   = errors.New("unknown column")
	ErrDuplicateColumn = errors.New("column appears twice")
	ErrNotMonotonic    = errors.New("time goes backwards")
	ErrNegative        = errors.New("negative value")
	ErrOutOfRange      = errors.New("value out of range")
	ErrUnknownFormat   = errors.New("unknown trace format")
	ErrZeroDuration    = errors.New("trace lasts no time")
	ErrFieldCount      = errors.New("wrong number of fields")
)

// ParseError locates a problem in a trace file. It prints as
//
//	StaticA.csv:17: DL_bitrate: "abc": invalid syntax
//
// leaving out the parts that are unknown (Line 0, empty Field or Value).
type ParseError struct {
	File  string // name given to the reader, usually the path
	Line  int    // 1-based line number; 0 if the problem is the file as a whole
	Field string // column name (or "time", "rate", "header")
	Value string // the offending text, possibly cut short
	Err   error  // the reason, e.g. ErrNegative or strconv.ErrSyntax
}

func (e *ParseError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	if e.Value != "" {
		s += ": " + strconv.Quote(e.Value)
	}
	return s + ": " + e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }

// maxValueLen bounds how much of a bad value an error repeats, so a
// corrupt multi-megabyte line does not end up in a terminal.
const maxValueLen = 40

func parseErr(file string, line int, field, value string, err error) *ParseError {
	if len(value) > maxValueLen {
		value = value[:maxValueLen] + "..."
	}
	return &ParseError{File: file, Line: line, Field: field, Value: value, Err: err}
}

// numErr turns a strconv error into its bare reason ("invalid syntax"), as
// the ParseError already names the value.
func numErr(err error) error {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return ne.Err
	}
	return err
}

// errorf wraps a sentinel with detail, keeping errors.Is working.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w ("+format+")", append([]any{sentinel}, args...)...)
}
