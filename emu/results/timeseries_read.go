package results

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Timeseries is a run's timeseries.csv (docs/results.md): one row per bin,
// t_s the end of the bin in seconds since the run's start, one column per
// quantity. Empty cells read as NaN (a quantity not measured in that bin).
type Timeseries struct {
	T       []float64
	Columns []string             // in file order, without t_s
	values  map[string][]float64 // column → one value per row
}

// Column returns the values of a column, or nil when there is none.
func (ts *Timeseries) Column(name string) []float64 { return ts.values[name] }

// Flows returns the flow names of the flow.<name>.goodput_mbps columns,
// in file order.
func (ts *Timeseries) Flows() []string {
	var out []string
	for _, c := range ts.Columns {
		if name, ok := SeriesFlow(c, SeriesGoodput); ok {
			out = append(out, name)
		}
	}
	return out
}

// Links returns the "link<N>.<dir>" prefixes that have a capacity or
// throughput column, sorted.
func (ts *Timeseries) Links() []string {
	seen := map[string]bool{}
	for _, c := range ts.Columns {
		for _, q := range []string{SeriesCapacity, SeriesThroughput} {
			if p, ok := SeriesDir(c, q); ok {
				seen[p] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// ReadTimeseries parses timeseries.csv. name is used in errors, which give
// the line and column.
func ReadTimeseries(r io.Reader, name string) (*Timeseries, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file, want a header row starting with t_s", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(header) == 0 || strings.TrimSpace(strings.TrimPrefix(header[0], "\ufeff")) != SeriesTime {
		return nil, fmt.Errorf("%s:1: first column is %q, want t_s", name, header[0])
	}
	ts := &Timeseries{values: map[string][]float64{}}
	cols := make([]string, len(header)-1)
	for i, h := range header[1:] {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, fmt.Errorf("%s:1: column %d has no name", name, i+2)
		}
		if _, dup := ts.values[h]; dup {
			return nil, fmt.Errorf("%s:1: column %q appears twice", name, h)
		}
		cols[i] = h
		ts.values[h] = nil
	}
	ts.Columns = cols
	for {
		rec, line, err := readRow(cr, name, "")
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		t, err := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64)
		if err != nil || math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("%s:%d: t_s: %q is not a time in seconds", name, line, rec[0])
		}
		if n := len(ts.T); n > 0 && t <= ts.T[n-1] {
			return nil, fmt.Errorf("%s:%d: t_s: %v does not increase (previous row %v)", name, line, t, ts.T[n-1])
		}
		ts.T = append(ts.T, t)
		for i, c := range cols {
			cell := strings.TrimSpace(rec[i+1])
			v := math.NaN()
			if cell != "" {
				v, err = strconv.ParseFloat(cell, 64)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %s: %q is not a number", name, line, c, rec[i+1])
				}
			}
			ts.values[c] = append(ts.values[c], v)
		}
	}
	return ts, nil
}

// FlowSample is one row of flows/<flow>.csv: cumulative application bytes
// received by the flow's client at t_s seconds after the run's start.
type FlowSample struct {
	TS    float64
	Bytes int64
}

// ReadFlowSamples parses a flows/<flow>.csv file (t_s,bytes with a header
// row). Bytes must not decrease.
func ReadFlowSamples(r io.Reader, name string) ([]FlowSample, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	cr.ReuseRecord = true
	var out []FlowSample
	for first := true; ; first = false {
		rec, line, err := readRow(cr, name, " (want t_s,bytes)")
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if first {
			if strings.TrimSpace(strings.TrimPrefix(rec[0], "\ufeff")) != "t_s" || strings.TrimSpace(rec[1]) != "bytes" {
				return nil, fmt.Errorf("%s:1: header is %q,%q, want t_s,bytes", name, rec[0], rec[1])
			}
			continue
		}
		t, err := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64)
		if err != nil || math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("%s:%d: t_s: %q is not a time in seconds", name, line, rec[0])
		}
		b, err := strconv.ParseInt(strings.TrimSpace(rec[1]), 10, 64)
		if err != nil || b < 0 {
			return nil, fmt.Errorf("%s:%d: bytes: %q is not a byte count", name, line, rec[1])
		}
		if n := len(out); n > 0 && (b < out[n-1].Bytes || t < out[n-1].TS) {
			return nil, fmt.Errorf("%s:%d: cumulative bytes or time decrease (%v s, %d B after %v s, %d B)", name, line, t, b, out[n-1].TS, out[n-1].Bytes)
		}
		out = append(out, FlowSample{TS: t, Bytes: b})
	}
	return out, nil
}

// readRow reads the next record of a CSV file and the line it starts on;
// the error is io.EOF after the last record. A malformed row's error names
// the file and line, followed by hint (what the file should hold).
func readRow(cr *csv.Reader, name, hint string) (rec []string, line int, err error) {
	rec, err = cr.Read()
	if err == io.EOF {
		return nil, 0, err
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, 0, fmt.Errorf("%s:%d: %w%s", name, pe.Line, pe.Err, hint)
		}
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	line, _ = cr.FieldPos(0)
	return rec, line, nil
}

// BytesAt returns the cumulative bytes a receive log had counted by t
// seconds (0 before its first row).
func BytesAt(samples []FlowSample, t float64) int64 {
	i := sort.Search(len(samples), func(i int) bool { return samples[i].TS > t })
	if i == 0 {
		return 0
	}
	return samples[i-1].Bytes
}
