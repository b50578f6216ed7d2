package tracefmt

import (
	"io"
	"strconv"
	"time"
)

// Column names of the G-NetTrack CSV that the Raca et al. datasets use.
const (
	racaTime = "Timestamp"
	racaDown = "DL_bitrate"
	racaUp   = "UL_bitrate"
)

// racaTimeLayout is G-NetTrack's local wall-clock time, 1 s resolution, no
// zone. Parsing it as UTC is right for differences: the traces are minutes
// long and no DST change falls inside one.
const racaTimeLayout = "2006.01.02_15.04.05"

// readRaca reads a G-NetTrack CSV. DL_bitrate and UL_bitrate are kbit/s; a
// "-" holds the previous value (0 before the first). Rows of 0 are kept:
// they are outages. Timestamp, when present, must never go backwards. In
// the default reading every row lasts one second, as the dataset authors'
// emulator (goDASHbed) replays it; with byTime each distinct timestamp's
// first row holds until the next distinct timestamp and the last timestamp
// ends the trace.
func readRaca(r io.Reader, name string, byTime bool) (*Trace, error) {
	c := newCSVRows(r, name)
	header, err := c.header()
	if err != nil {
		return nil, err
	}
	ti, di, ui := column(header, racaTime), column(header, racaDown), column(header, racaUp)
	if di < 0 {
		return nil, parseErr(name, c.line, racaDown, "", ErrMissingColumn)
	}
	if byTime && ti < 0 {
		return nil, parseErr(name, c.line, racaTime, "", ErrMissingColumn)
	}
	var (
		h        holder
		rows     []Step
		cur      Step
		t0       time.Time
		prevTime time.Time
		haveTime bool
	)
	for {
		rec, err := c.next()
		if err != nil {
			return nil, err
		}
		if rec == nil {
			break
		}
		if cur.Down, err = c.heldRate(rec, di, racaDown, 1e3, cur.Down); err != nil {
			return nil, err
		}
		if ui >= 0 {
			if cur.Up, err = c.heldRate(rec, ui, racaUp, 1e3, cur.Up); err != nil {
				return nil, err
			}
		}
		if ti < 0 {
			rows = append(rows, cur)
			continue
		}
		v, err := c.field(rec, ti, racaTime)
		if err != nil {
			return nil, err
		}
		ts, err := time.Parse(racaTimeLayout, v)
		if err != nil {
			return nil, parseErr(name, c.line, racaTime, v, errorf(strconv.ErrSyntax, "want YYYY.MM.DD_hh.mm.ss"))
		}
		if !haveTime {
			t0, prevTime, haveTime = ts, ts, true
		}
		if ts.Before(prevTime) {
			return nil, parseErr(name, c.line, racaTime, v, errorf(ErrNotMonotonic, "previous row: %s", prevTime.Format(racaTimeLayout)))
		}
		at := ts.Sub(t0)
		if at > MaxDuration {
			return nil, parseErr(name, c.line, racaTime, v, errorf(ErrOutOfRange, "more than %v after the first row", MaxDuration))
		}
		prevTime = ts
		if byTime {
			h.add(at, cur)
		}
		rows = append(rows, cur)
	}
	if len(rows) == 0 {
		return nil, parseErr(name, c.line+1, racaDown, "", ErrEmpty)
	}
	t := &Trace{HasUp: ui >= 0}
	if !byTime {
		for i := range rows {
			rows[i].At = time.Duration(i) * time.Second
		}
		t.Steps, t.End = rows, time.Duration(len(rows))*time.Second
		return t, nil
	}
	var ok bool
	if t.Steps, t.End, ok = h.endAtLast(); !ok {
		return nil, parseErr(name, c.line, racaTime, "", errorf(ErrZeroDuration, "replaying by timestamps needs two distinct timestamps"))
	}
	return t, nil
}
