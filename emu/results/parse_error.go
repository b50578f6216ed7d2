package results

import "strconv"

// ParseError locates what is wrong in a file a run wrote: the file, the
// 1-based line, the column and the offending text. Readers of every format
// in this package return it, printed like
// `owd.csv:17: owd_ms: "abc": invalid syntax`.
type ParseError struct {
	File  string // name given to the reader, usually the path
	Line  int    // 1-based line number; 0 if the problem is the file as a whole
	Field string // column name, or "header"
	Value string // the offending text, possibly cut short
	Err   error  // the reason, e.g. ErrRange or strconv.ErrSyntax
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

// maxValueLen bounds how much of a bad value an error repeats.
const maxValueLen = 64

// cut is b as a string of at most maxValueLen bytes.
func cut(b []byte) string {
	if len(b) > maxValueLen {
		return string(b[:maxValueLen]) + "…"
	}
	return string(b)
}
