package tracefmt

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// csvRows reads comma-separated records, trimming fields and remembering
// where each record starts, for the CSV-based readers.
type csvRows struct {
	r    *csv.Reader
	name string
	line int // line of the record last returned
}

func newCSVRows(r io.Reader, name string) *csvRows {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // readers check counts themselves, with better errors
	cr.ReuseRecord = true
	cr.LazyQuotes = true
	return &csvRows{r: cr, name: name}
}

// next returns the next record, or nil at the end of the input. The slice
// is reused by the following call.
func (c *csvRows) next() ([]string, error) {
	rec, err := c.r.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, parseErr(c.name, pe.Line, "", "", pe.Err)
		}
		return nil, parseErr(c.name, c.line+1, "", "", err)
	}
	c.line, _ = c.r.FieldPos(0)
	for i := range rec {
		rec[i] = strings.TrimSpace(rec[i])
	}
	return rec, nil
}

// header reads the first record as column names; an input without one is
// empty.
func (c *csvRows) header() ([]string, error) {
	rec, err := c.next()
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, parseErr(c.name, 1, "", "", ErrEmpty)
	}
	h := append([]string(nil), rec...)
	if len(h) > 0 {
		h[0] = strings.TrimPrefix(h[0], "\ufeff")
	}
	return h, nil
}

// column finds name among the header's columns, ignoring case; -1 if absent.
func column(header []string, name string) int {
	for i, h := range header {
		if strings.EqualFold(h, name) {
			return i
		}
	}
	return -1
}

// field returns rec[i], or an error naming the column if the record is too
// short to have it.
func (c *csvRows) field(rec []string, i int, col string) (string, error) {
	if i >= len(rec) {
		return "", parseErr(c.name, c.line, col, "", errorf(ErrFieldCount, "record has %d fields", len(rec)))
	}
	return rec[i], nil
}
