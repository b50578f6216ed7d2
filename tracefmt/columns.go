package tracefmt

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// columnPreset is a column mapping for a dataset whose header Detect knows.
type columnPreset struct {
	dataset          string
	time, down, unit string
}

// columnPresets returns the datasets whose columns need no naming. Both are
// per-second throughput logs: seq_num counts seconds, rates are Mbit/s.
func columnPresets() []columnPreset {
	return []columnPreset{
		{dataset: "5Gophers", time: "seq_num", down: "throughput_mbps", unit: "mbps"},
		{dataset: "Lumos5G", time: "seq_num", down: "Throughput", unit: "mbps"},
	}
}

// presetFor returns the preset whose columns the header has.
func presetFor(header []string) (columnPreset, bool) {
	for _, p := range columnPresets() {
		if column(header, p.time) >= 0 && column(header, p.down) >= 0 {
			return p, true
		}
	}
	return columnPreset{}, false
}

// readColumns reads a CSV whose time and rate columns the caller names (or
// a known dataset's, see columnPresets). Each row is a measurement over the
// interval until the next row's time, so the last row lasts as long as the
// one before it (a per-second log of n rows lasts n seconds). Without a time
// column every row lasts one second. Times are taken relative to the first
// row and must not go backwards; a repeated time keeps its first row. An
// empty or "-" rate holds the previous value (0 before the first).
func readColumns(r io.Reader, name string, o ReadOptions) (*Trace, error) {
	c := newCSVRows(r, name)
	header, err := c.header()
	if err != nil {
		return nil, err
	}
	tcol, dcol, ucol, runit := o.TimeColumn, o.DownColumn, o.UpColumn, o.RateUnit
	if dcol == "" {
		p, ok := presetFor(header)
		if !ok {
			return nil, fmt.Errorf("%s: name the rate column (and the time column) of a %q trace; header: %s", name, FormatColumns, strings.Join(header, ","))
		}
		tcol, dcol = p.time, p.down
		if runit == "" {
			runit = p.unit
		}
	}
	tmult, err := timeUnit(o.TimeUnit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	rmult, err := rateUnit(runit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ti, di, ui := -1, column(header, dcol), -1
	if di < 0 {
		return nil, parseErr(name, c.line, dcol, "", ErrMissingColumn)
	}
	if tcol != "" {
		if ti = column(header, tcol); ti < 0 {
			return nil, parseErr(name, c.line, tcol, "", ErrMissingColumn)
		}
	}
	if ucol != "" {
		if ui = column(header, ucol); ui < 0 {
			return nil, parseErr(name, c.line, ucol, "", ErrMissingColumn)
		}
	}
	var (
		h   holder
		cur Step
	)
	for row := 0; ; row++ {
		rec, err := c.next()
		if err != nil {
			return nil, err
		}
		if rec == nil {
			break
		}
		at := time.Duration(row) * time.Second
		if ti >= 0 {
			v, err := c.field(rec, ti, tcol)
			if err != nil {
				return nil, err
			}
			if at, err = parseTime(v, tmult); err != nil {
				return nil, parseErr(name, c.line, tcol, v, err)
			}
			if h.backwards(at) {
				return nil, parseErr(name, c.line, tcol, v, errorf(ErrNotMonotonic, "previous row: %v", h.last))
			}
		}
		if cur.Down, err = c.heldRate(rec, di, dcol, rmult, cur.Down); err != nil {
			return nil, err
		}
		if ui >= 0 {
			if cur.Up, err = c.heldRate(rec, ui, ucol, rmult, cur.Up); err != nil {
				return nil, err
			}
		}
		h.add(at, cur)
	}
	steps, end, ok := h.endAfterLast()
	if !ok {
		if h.n == 0 {
			return nil, parseErr(name, c.line+1, dcol, "", ErrEmpty)
		}
		return nil, parseErr(name, c.line, tcol, "", ErrOutOfRange)
	}
	return &Trace{Steps: steps, End: end, HasUp: ui >= 0}, nil
}

// heldRate reads a rate column in units of mult bit/s; a missing value
// keeps prev.
func (c *csvRows) heldRate(rec []string, i int, col string, mult, prev float64) (float64, error) {
	v, err := c.field(rec, i, col)
	if err != nil {
		return 0, err
	}
	if missing(v) {
		return prev, nil
	}
	bps, err := parseRate(v, mult)
	if err != nil {
		return 0, parseErr(c.name, c.line, col, v, err)
	}
	return bps, nil
}
