package tracefmt

import (
	"io"
	"strings"
)

// The plain CSV's columns, in their positional order.
const (
	colTime  = "time_s"
	colDown  = "down_mbps"
	colUp    = "up_mbps"
	colDelay = "delay_ms"
	colLoss  = "loss"
	// Named columns only (a header must give them): one direction's delay
	// or loss.
	colDownDelay = "down_delay_ms"
	colUpDelay   = "up_delay_ms"
	colDownLoss  = "down_loss"
	colUpLoss    = "up_loss"
)

// plainColumns is the positional order of the plain CSV's columns.
func plainColumns() []string { return []string{colTime, colDown, colUp, colDelay, colLoss} }

// namedColumns are the columns a header may also name.
func namedColumns() []string {
	return append(plainColumns(), colDownDelay, colUpDelay, colDownLoss, colUpLoss)
}

// readCSV reads emu's plain CSV:
//
//	time_s,down_mbps,up_mbps,delay_ms,loss
//	0,20,5,25,0
//	10,30,5,25,0.01
//	20,30,5,25,0.01
//
// time_s is seconds from the start (the first row's time is taken as 0),
// strictly increasing. down_mbps and up_mbps are capacities in Mbit/s
// (10^6 bit/s), delay_ms a one-way delay in milliseconds for both
// directions, loss a probability from 0 to 1. Only time_s and down_mbps are
// required, except in a file with a header and a delay or loss column,
// which may carry no rate at all: it then drives a link's delay or loss
// only (linkN.DIR.delay=FILE), and its rates read 0.
//
// The header is optional: with one, columns may come in any order and are
// matched by name (case-insensitively; an unknown name is an error, to catch
// typos), down_delay_ms and up_delay_ms give each direction its own
// delay (beside delay_ms they are an error), and down_loss and up_loss
// each direction its own loss (beside loss they are an error); each pair
// comes together. Without a header the columns are positional in the
// order above. Each row
// holds until the next row's time; the last row's time is the end of the
// trace, and its values are not used (WriteCSV repeats the previous ones; a
// last row may also carry only the time). So a constant 20 Mbit/s minute is
//
//	0,20
//	60,20
func readCSV(r io.Reader, name string) (*Trace, error) {
	c := newCSVRows(r, name)
	first, err := c.next()
	if err != nil {
		return nil, err
	}
	if first == nil {
		return nil, parseErr(name, 1, colTime, "", ErrEmpty)
	}
	first = append([]string(nil), first...)
	cols, err := c.plainHeader(first)
	if err != nil {
		return nil, err
	}
	idx := map[string]int{}
	for i, col := range cols {
		idx[col] = i
	}
	t := &Trace{}
	_, t.HasUp = idx[colUp]
	_, t.HasDelay = idx[colDelay]
	_, t.HasUpDelay = idx[colUpDelay]
	t.HasDelay = t.HasDelay || t.HasUpDelay
	_, t.HasLoss = idx[colLoss]
	_, t.HasUpLoss = idx[colUpLoss]
	t.HasLoss = t.HasLoss || t.HasUpLoss

	var h holder
	rec := first
	if isHeader(first) {
		rec, err = c.next()
	}
	for ; rec != nil && err == nil; rec, err = c.next() {
		endRow := len(rec) == 1 && idx[colTime] == 0
		if len(rec) != len(cols) && !endRow {
			return nil, parseErr(name, c.line, "", "", errorf(ErrFieldCount, "%d fields, want %d (%s)", len(rec), len(cols), strings.Join(cols, ",")))
		}
		at, err := parseTime(rec[idx[colTime]], 1e9)
		if err != nil {
			return nil, parseErr(name, c.line, cols[idx[colTime]], rec[idx[colTime]], err)
		}
		if h.n > 0 && at <= h.last {
			return nil, parseErr(name, c.line, colTime, rec[idx[colTime]], errorf(ErrNotMonotonic, "must increase; previous row: %s", formatSeconds(h.last)))
		}
		if endRow {
			// Only a time: the end row. Nothing may follow it.
			h.add(at, Step{})
			if next, err := c.next(); err != nil || next != nil {
				if err == nil {
					err = parseErr(name, c.line, colTime, "", errorf(ErrFieldCount, "a row with only a time must be the last"))
				}
				return nil, err
			}
			break
		}
		s, err := c.plainStep(rec, cols)
		if err != nil {
			return nil, err
		}
		h.add(at, s)
	}
	if err != nil {
		return nil, err
	}
	if h.n == 0 {
		return nil, parseErr(name, c.line+1, colTime, "", ErrEmpty)
	}
	var ok bool
	if t.Steps, t.End, ok = h.endAtLast(); !ok {
		return nil, parseErr(name, c.line, colTime, "", errorf(ErrZeroDuration, "the last row's time is the end of the trace; add a row after the first"))
	}
	return t, nil
}

// isHeader reports whether a first record is a header rather than data: a
// header's first field is not a number.
func isHeader(rec []string) bool {
	_, err := parseFinite(rec[0])
	return err != nil
}

// plainHeader returns the column names of a plain CSV: the header's, or the
// positional ones for as many fields as the first row has.
func (c *csvRows) plainHeader(first []string) ([]string, error) {
	known := plainColumns()
	named := namedColumns()
	if !isHeader(first) {
		if len(first) > len(known) {
			return nil, parseErr(c.name, c.line, "", "", errorf(ErrFieldCount, "%d fields, at most %d (%s)", len(first), len(known), strings.Join(known, ",")))
		}
		if len(first) < 2 {
			return nil, parseErr(c.name, c.line, colDown, "", errorf(ErrFieldCount, "want at least time_s,down_mbps"))
		}
		return known[:len(first)], nil
	}
	cols := make([]string, len(first))
	seen := map[string]bool{}
	for i, f := range first {
		name := strings.ToLower(strings.TrimPrefix(f, "\ufeff"))
		if column(named, name) < 0 {
			return nil, parseErr(c.name, c.line, "header", f, errorf(ErrUnknownColumn, "want %s", strings.Join(named, ", ")))
		}
		if seen[name] {
			return nil, parseErr(c.name, c.line, "header", f, ErrDuplicateColumn)
		}
		seen[name], cols[i] = true, name
	}
	if seen[colDelay] && (seen[colDownDelay] || seen[colUpDelay]) {
		return nil, parseErr(c.name, c.line, "header", colDelay, errorf(ErrDuplicateColumn, "delay_ms sets both directions' delay; beside it %s and %s are ambiguous", colDownDelay, colUpDelay))
	}
	if seen[colDownDelay] != seen[colUpDelay] {
		return nil, parseErr(c.name, c.line, "header", "", errorf(ErrMissingColumn, "%s and %s come together (delay_ms sets both directions)", colDownDelay, colUpDelay))
	}
	if seen[colLoss] && (seen[colDownLoss] || seen[colUpLoss]) {
		return nil, parseErr(c.name, c.line, "header", colLoss, errorf(ErrDuplicateColumn, "loss sets both directions' loss; beside it %s and %s are ambiguous", colDownLoss, colUpLoss))
	}
	if seen[colDownLoss] != seen[colUpLoss] {
		return nil, parseErr(c.name, c.line, "header", "", errorf(ErrMissingColumn, "%s and %s come together (loss sets both directions)", colDownLoss, colUpLoss))
	}
	need := []string{colTime, colDown}
	if seen[colDelay] || seen[colDownDelay] || seen[colUpDelay] || seen[colLoss] || seen[colDownLoss] || seen[colUpLoss] {
		need = need[:1] // a delay or loss trace needs no rate
	}
	for _, n := range need {
		if !seen[n] {
			return nil, parseErr(c.name, c.line, n, "", ErrMissingColumn)
		}
	}
	return cols, nil
}

// parseProb reads a loss probability.
func parseProb(v string) (float64, error) {
	p, err := parseFinite(v)
	if err == nil && (p < 0 || p > 1) {
		err = errorf(ErrOutOfRange, "a probability is between 0 and 1")
	}
	return p, err
}

// plainStep reads one data row's values.
func (c *csvRows) plainStep(rec, cols []string) (Step, error) {
	var s Step
	for i, col := range cols {
		v := rec[i]
		var err error
		switch col {
		case colDown:
			s.Down, err = parseRate(v, 1e6)
		case colUp:
			s.Up, err = parseRate(v, 1e6)
		case colDelay:
			s.Delay, err = parseTime(v, 1e6)
		case colDownDelay:
			s.Delay, err = parseTime(v, 1e6)
		case colUpDelay:
			s.UpDelay, err = parseTime(v, 1e6)
		case colLoss, colDownLoss:
			s.Loss, err = parseProb(v)
		case colUpLoss:
			s.UpLoss, err = parseProb(v)
		}
		if err != nil {
			return Step{}, parseErr(c.name, c.line, col, v, err)
		}
	}
	return s, nil
}
