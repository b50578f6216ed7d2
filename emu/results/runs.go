package results

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// runsColumns are runs.csv's first columns; one column per metric
// follows.
var runsColumns = []string{"run", "point", "repeat", "seed", "status", "attempts", "duration_s", "reason"}

// runStatuses are the statuses a runs.csv row may have.
var runStatuses = []string{StatusOK, StatusDegraded, StatusFailed, StatusInterrupted, StatusMissing}

// WriteRunsCSV writes runs.csv: for each run its id, point, repeat and
// seed, its status, how many attempts it had, its duration_s and why it
// does not count (empty when it does), then its value of each of metrics.
// Numbers are written exactly (the shortest form that reads back the same
// float64), so statistics made from the record equal those made from the
// run directories. An empty cell is a metric the run does not have; NaN
// is one it has without a value.
func WriteRunsCSV(w io.Writer, runs []RunResult, metrics []string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append(slices.Clone(runsColumns), metrics...)); err != nil {
		return err
	}
	rec := make([]string, 0, len(runsColumns)+len(metrics))
	for _, r := range runs {
		rec = append(rec[:0], r.ID, r.Point, strconv.Itoa(r.Repeat), strconv.FormatUint(r.Seed, 10), r.Status, strconv.Itoa(r.Attempts), exact(r.DurationS), r.Error)
		for _, m := range metrics {
			v, ok := r.Metrics[m]
			if !ok {
				rec = append(rec, "")
				continue
			}
			rec = append(rec, exact(v))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// exact formats v so that it parses back to the same float64.
func exact(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// ReadRunsCSV parses runs.csv. name is used in errors (*ParseError, with
// the line and the column). Rows keep the file's order; a run id may
// appear once.
func ReadRunsCSV(r io.Reader, name string) ([]RunResult, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &ParseError{File: name, Field: "header", Err: fmt.Errorf("empty file: %w starting %s", ErrHeader, strings.Join(runsColumns, ","))}
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	header = slices.Clone(header) // the next Read reuses its array
	if len(header) < len(runsColumns) || !slices.Equal(header[:len(runsColumns)], runsColumns) {
		return nil, &ParseError{File: name, Line: 1, Field: "header", Value: strings.Join(header, ","), Err: fmt.Errorf("%w starting %s", ErrHeader, strings.Join(runsColumns, ","))}
	}
	metrics := slices.Clone(header[len(runsColumns):])
	for i, m := range metrics {
		if m == "" || slices.Contains(metrics[:i], m) || slices.Contains(runsColumns, m) {
			return nil, &ParseError{File: name, Line: 1, Field: "header", Value: m, Err: errors.New("metric column empty or repeated")}
		}
	}
	var out []RunResult
	seen := map[string]bool{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		fail := func(col int, err error) error {
			return &ParseError{File: name, Line: line, Field: header[col], Value: cut([]byte(rec[col])), Err: err}
		}
		r := RunResult{Run: Run{ID: rec[0], Point: rec[1]}, Status: rec[4], Error: rec[7], Metrics: map[string]float64{}}
		switch {
		case r.ID == "":
			return nil, fail(0, errors.New("no run id"))
		case seen[r.ID]:
			return nil, fail(0, errors.New("run listed twice"))
		case r.Point == "":
			return nil, fail(1, errors.New("no point id"))
		case !slices.Contains(runStatuses, r.Status):
			return nil, fail(4, fmt.Errorf("not a status (%s)", strings.Join(runStatuses, ", ")))
		}
		seen[r.ID] = true
		repeat, err := strconv.Atoi(rec[2])
		if err != nil || repeat < 1 {
			return nil, fail(2, ErrRange)
		}
		r.Repeat = repeat
		if r.Seed, err = strconv.ParseUint(rec[3], 10, 64); err != nil {
			return nil, fail(3, ErrRange)
		}
		if r.Attempts, err = strconv.Atoi(rec[5]); err != nil || r.Attempts < 0 {
			return nil, fail(5, ErrRange)
		}
		if r.DurationS, err = strconv.ParseFloat(rec[6], 64); err != nil || !(r.DurationS >= 0) || math.IsInf(r.DurationS, 0) {
			return nil, fail(6, ErrRange)
		}
		for i, m := range metrics {
			cell := rec[len(runsColumns)+i]
			if cell == "" {
				continue
			}
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil {
				return nil, fail(len(runsColumns)+i, strconv.ErrSyntax)
			}
			r.Metrics[m] = v
		}
		out = append(out, r)
	}
}

// csvError locates an error of encoding/csv.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: name, Line: pe.Line, Err: pe.Err}
	}
	return fmt.Errorf("%s: %w", name, err)
}
