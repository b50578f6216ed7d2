package results

import "github.com/dc-emu/emu/tracefmt"

// ParseError locates what is wrong in a file a run wrote: the file, the
// 1-based line, the column and the offending text. Readers of every format
// in this package return it, printed like
// `owd.csv:17: owd_ms: "abc": invalid syntax`. It is tracefmt's located
// error (the same type: one errors.As target for every file emu reads);
// Field is a column name or "header", Err a reason such as ErrRange or
// strconv.ErrSyntax.
type ParseError = tracefmt.ParseError

// maxValueLen bounds how much of a bad value an error repeats.
const maxValueLen = 64

// cut is b as a string of at most maxValueLen bytes.
func cut(b []byte) string {
	if len(b) > maxValueLen {
		return string(b[:maxValueLen]) + "…"
	}
	return string(b)
}
