package qlog

import (
	"errors"
	"fmt"
	"strconv"
)

// scanner walks one JSON text in place. It validates the syntax of every
// byte it passes (so a record cut short or garbled is always noticed) but
// decodes only what the caller asks for: the qlog reader pulls a handful of
// numbers and short strings out of each event and skips the rest, which is
// several times faster than encoding/json's reflection into maps and
// allocates nothing per event.
//
// A scanner is a value on the caller's stack; it is not safe for concurrent
// use and keeps no state between records.
type scanner struct {
	b     []byte
	pos   int
	depth int
}

// maxDepth bounds nesting so a hostile record like "[[[[…" cannot exhaust
// the stack; real qlog events nest four levels deep.
const maxDepth = 256

// errUnexpectedEnd marks a JSON text that stopped in the middle of a value:
// the signature of a record whose writer was killed.
var errUnexpectedEnd = errors.New("unexpected end of record")

// syntaxError is a JSON syntax problem at a byte position in the record.
type syntaxError struct {
	pos int
	msg string
	err error // errUnexpectedEnd or nil
}

func (e *syntaxError) Error() string { return e.msg }
func (e *syntaxError) Unwrap() error { return e.err }

func (s *scanner) fail(format string, args ...any) error {
	return &syntaxError{pos: s.pos, msg: fmt.Sprintf(format, args...)}
}

func (s *scanner) end() error {
	return &syntaxError{pos: s.pos, msg: errUnexpectedEnd.Error(), err: errUnexpectedEnd}
}

func (s *scanner) ws() {
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// beginObject consumes '{'.
func (s *scanner) beginObject() error {
	s.ws()
	if s.pos >= len(s.b) {
		return s.end()
	}
	if s.b[s.pos] != '{' {
		return s.fail("expected an object, found %s", s.describe())
	}
	s.pos++
	return nil
}

// member advances to the next key of the object begun with beginObject and
// consumes the colon after it. It returns ok=false, and no key, after the
// closing brace or with an error. first tells whether this is the first
// call on the object; objectWalk keeps track of it.
func (s *scanner) member(first bool) (key []byte, ok bool, err error) {
	s.ws()
	if s.pos >= len(s.b) {
		return nil, false, s.end()
	}
	c := s.b[s.pos]
	if c == '}' {
		s.pos++
		return nil, false, nil
	}
	if !first {
		if c != ',' {
			return nil, false, s.fail("expected ',' or '}' in object, found %s", s.describe())
		}
		s.pos++
		s.ws()
		if s.pos >= len(s.b) {
			return nil, false, s.end()
		}
	}
	if s.b[s.pos] != '"' {
		return nil, false, s.fail("expected an object key, found %s", s.describe())
	}
	key, escaped, err := s.str()
	if err != nil {
		return nil, false, err
	}
	if escaped {
		// Keys in qlog never need escapes; decode the odd one rather than
		// mismatch it.
		u, uerr := strconv.Unquote(`"` + string(key) + `"`)
		if uerr == nil {
			key = []byte(u)
		}
	}
	s.ws()
	if s.pos >= len(s.b) {
		return nil, false, s.end()
	}
	if s.b[s.pos] != ':' {
		return nil, false, s.fail("expected ':' after key %q, found %s", key, s.describe())
	}
	s.pos++
	s.ws()
	return key, true, nil
}

// beginArray consumes '['.
func (s *scanner) beginArray() error {
	s.ws()
	if s.pos >= len(s.b) {
		return s.end()
	}
	if s.b[s.pos] != '[' {
		return s.fail("expected an array, found %s", s.describe())
	}
	s.pos++
	return nil
}

// element advances to the next element of an array; ok=false after ']'.
// first tells whether this is the first call on the array.
func (s *scanner) element(first bool) (ok bool, err error) {
	s.ws()
	if s.pos >= len(s.b) {
		return false, s.end()
	}
	c := s.b[s.pos]
	if c == ']' {
		s.pos++
		return false, nil
	}
	if !first {
		if c != ',' {
			return false, s.fail("expected ',' or ']' in array, found %s", s.describe())
		}
		s.pos++
		s.ws()
	}
	return true, nil
}

// objectWalk steps through the members of one JSON object for a decoder,
// which keeps only its switch on the key:
//
//	o := s.object()
//	for o.next(s) {
//		switch string(o.key) {
//		case "length":
//			ev.Length, o.err = s.int()
//		default:
//			o.err = s.skip()
//		}
//	}
//	return o.end()
//
// The loop body reads (or skips) the value of key and sets err, which ends
// the walk. It is a loop with a next that inlines, not a callback per
// member, because every extra call per member costs the qlog reader
// several percent of its throughput (a closure-based walk measured 6-11%).
type objectWalk struct {
	key   []byte // the member whose value is next; nil after a syntax error
	err   error  // from the value of key, or a syntax error around it
	first bool
}

// object begins a walk of the object at s.
func (s *scanner) object() objectWalk {
	return objectWalk{err: s.beginObject(), first: true}
}

// next advances to the next key and reports false after the closing brace
// or an error.
func (o *objectWalk) next(s *scanner) (ok bool) {
	if o.err == nil {
		o.key, ok, o.err = s.member(o.first)
		o.first = false
	}
	return ok
}

// end returns the error that ended the walk: a value's prefixed with its
// key, a syntax error between members as it is (member gives no key with
// an error).
func (o *objectWalk) end() error {
	if o.err != nil && o.key != nil {
		return inField(string(o.key), o.err)
	}
	return o.err
}

// arrayWalk steps through the elements of one JSON array like objectWalk;
// errors are returned as they are.
type arrayWalk struct {
	err   error
	first bool
}

// array begins a walk of the array at s.
func (s *scanner) array() arrayWalk {
	return arrayWalk{err: s.beginArray(), first: true}
}

// next advances to the next element and reports false after the closing
// bracket or an error.
func (a *arrayWalk) next(s *scanner) (ok bool) {
	if a.err == nil {
		ok, a.err = s.element(a.first)
		a.first = false
	}
	return ok
}

// str consumes a string and returns its raw contents (escapes not decoded)
// and whether it held any escape.
func (s *scanner) str() (raw []byte, escaped bool, err error) {
	s.pos++ // opening quote, checked by the caller
	start := s.pos
	b := s.b
	for i := s.pos; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return b[start:i], escaped, nil
		case c == '\\':
			escaped = true
			i++
			if i >= len(b) {
				s.pos = i
				return nil, false, s.end()
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for k := 1; k <= 4; k++ {
					if i+k >= len(b) {
						s.pos = i + k
						return nil, false, s.end()
					}
					if !isHex(b[i+k]) {
						s.pos = i + k
						return nil, false, s.fail("invalid \\u escape in string")
					}
				}
				i += 4
			default:
				s.pos = i
				return nil, false, s.fail("invalid escape '\\%c' in string", b[i])
			}
		case c < 0x20:
			s.pos = i
			return nil, false, s.fail("control character 0x%02x in string", c)
		}
	}
	s.pos = len(b)
	return nil, false, s.end()
}

// stringValue consumes a value that must be a string.
func (s *scanner) stringValue() ([]byte, error) {
	if s.pos >= len(s.b) {
		return nil, s.end()
	}
	if s.b[s.pos] != '"' {
		return nil, s.fail("expected a string, found %s", s.describe())
	}
	raw, _, err := s.str()
	return raw, err
}

// number consumes a JSON number and returns its text.
func (s *scanner) number() ([]byte, error) {
	b := s.b
	start := s.pos
	i := s.pos
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		s.pos = i
		return nil, s.end()
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		s.pos = i
		return nil, s.fail("expected a number, found %s", s.describe())
	}
	if i < len(b) && b[i] == '.' {
		var err error
		if i, err = s.digits(i+1, "after the decimal point"); err != nil {
			return nil, err
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		var err error
		if i, err = s.digits(i, "in the exponent"); err != nil {
			return nil, err
		}
	}
	s.pos = i
	return b[start:i], nil
}

// digits consumes the digits a number's fraction or exponent must have,
// from b[i], and returns the index after them; where names the part in
// the error when there is none.
func (s *scanner) digits(i int, where string) (int, error) {
	b := s.b
	if i >= len(b) {
		s.pos = i
		return i, s.end()
	}
	if !isDigit(b[i]) {
		s.pos = i
		return i, s.fail("expected a digit %s", where)
	}
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i, nil
}

// float consumes a number value as float64.
func (s *scanner) float() (float64, error) {
	n, f, whole, err := s.numberValue("number %s out of range")
	if whole {
		return float64(n), nil
	}
	return f, err
}

// int consumes a number value that must be a whole number.
func (s *scanner) int() (int64, error) {
	const notInt = "expected an integer, found %s"
	start := s.pos
	n, f, whole, err := s.numberValue(notInt)
	if err != nil || whole {
		return n, err
	}
	if f != float64(int64(f)) || f > 1<<62 || f < -(1<<62) {
		return 0, s.rejectNumber(start, notInt)
	}
	return int64(f), nil
}

// numberValue consumes a number value. A whole number smallInt reads comes
// back in n with whole set, exact and without ParseFloat; any other is
// parsed into f, and one that does not parse fails with unparsable, a
// format given the number's text.
func (s *scanner) numberValue(unparsable string) (n int64, f float64, whole bool, err error) {
	if s.pos >= len(s.b) {
		return 0, 0, false, s.end()
	}
	start := s.pos
	raw, err := s.number()
	if err != nil {
		return 0, 0, false, err
	}
	if n, ok := smallInt(raw); ok {
		return n, 0, true, nil
	}
	f, perr := strconv.ParseFloat(string(raw), 64)
	if perr != nil {
		return 0, 0, false, s.rejectNumber(start, unparsable)
	}
	return 0, f, false, nil
}

// rejectNumber fails with format given the text of the number just
// consumed, which began at start, and points the error at its start.
func (s *scanner) rejectNumber(start int, format string) error {
	raw := s.b[start:s.pos]
	s.pos = start
	return s.fail(format, raw)
}

// smallInt parses an optional '-' and up to 18 digits, the fast path for
// packet numbers, lengths and integer-millisecond times.
func smallInt(raw []byte) (int64, bool) {
	neg := false
	if len(raw) > 0 && raw[0] == '-' {
		neg = true
		raw = raw[1:]
	}
	if len(raw) == 0 || len(raw) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range raw {
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// skip consumes any JSON value, validating it.
func (s *scanner) skip() error {
	s.ws()
	if s.pos >= len(s.b) {
		return s.end()
	}
	switch c := s.b[s.pos]; {
	case c == '"':
		_, _, err := s.str()
		return err
	case c == '{' || c == '[':
		return s.skipNested(c)
	case c == '-' || isDigit(c):
		_, err := s.number()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	default:
		return s.fail("expected a value, found %s", s.describe())
	}
}

// skipNested consumes the object or array that starts with c. Errors inside
// are returned as they are: a decoder names only the member it skipped.
func (s *scanner) skipNested(c byte) error {
	if s.depth++; s.depth > maxDepth {
		return s.fail("nesting deeper than %d levels", maxDepth)
	}
	var err error
	if c == '{' {
		o := s.object()
		for o.next(s) {
			o.err = s.skip()
		}
		err = o.err
	} else {
		a := s.array()
		for a.next(s) {
			a.err = s.skip()
		}
		err = a.err
	}
	if err != nil {
		return err
	}
	s.depth--
	return nil
}

func (s *scanner) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if s.pos+i >= len(s.b) {
			s.pos += i
			return s.end()
		}
		if s.b[s.pos+i] != word[i] {
			s.pos += i
			return s.fail("invalid literal, expected %q", word)
		}
	}
	s.pos += len(word)
	return nil
}

// finish checks that only whitespace follows the value.
func (s *scanner) finish() error {
	s.ws()
	if s.pos < len(s.b) {
		return s.fail("unexpected %s after the end of the record", s.describe())
	}
	return nil
}

// describe names the byte at the current position for error messages.
func (s *scanner) describe() string {
	if s.pos >= len(s.b) {
		return "end of record"
	}
	c := s.b[s.pos]
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
