package qlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Header is the first record of a sequential qlog file, reduced to what the
// analysis and the qvis export need. quic-go v0.65 and ngtcp2 0.12 write
// different header shapes (qlog.md §2 and §5); both end up here.
type Header struct {
	QlogVersion  string // "0.3" in both producers; qvis needs it
	QlogFormat   string // "JSON-SEQ"
	FileSchema   string // quic-go only: "urn:ietf:params:qlog:file:sequential"
	Title        string // "quic-go qlog"
	CodeVersion  string // quic-go module version
	VantagePoint string // "client", "server", "transport" or ""
	VantageName  string // ngtcp2 names itself here
	GroupID      string // the original destination connection ID, hex
	// WallClock is the absolute time of the trace's time 0 (quic-go's
	// reference_time.wall_clock_time); zero when the header has none
	// (ngtcp2 0.12.1 writes reference_time 0 and no anchor).
	WallClock time.Time
	// ReferenceMs is a numeric reference_time (ms), as ngtcp2 and older
	// drafts write it; 0 otherwise.
	ReferenceMs float64
	TimeFormat  string // "relative" in ngtcp2; absent in quic-go
}

// Producer names the implementation that wrote the file, as well as the
// header tells.
func (h Header) Producer() string {
	switch {
	case h.Title == "quic-go qlog":
		return strings.TrimSpace("quic-go " + h.CodeVersion)
	case h.VantageName != "":
		return h.VantageName
	case h.Title != "":
		return h.Title
	}
	return "unknown"
}

// Abs converts an event time (ms since the reference) to wall-clock time.
// ok is false when the header has no absolute anchor.
func (h Header) Abs(ms float64) (t time.Time, ok bool) {
	if h.WallClock.IsZero() {
		return time.Time{}, false
	}
	return h.WallClock.Add(time.Duration(ms * float64(time.Millisecond))), true
}

type rawHeader struct {
	QlogVersion         string           `json:"qlog_version"`
	QlogFormat          string           `json:"qlog_format"`
	FileSchema          string           `json:"file_schema"`
	SerializationFormat string           `json:"serialization_format"`
	Title               string           `json:"title"`
	CodeVersion         string           `json:"code_version"`
	Trace               *json.RawMessage `json:"trace"`
	Traces              *json.RawMessage `json:"traces"`
	Name                *json.RawMessage `json:"name"`
	Time                *json.RawMessage `json:"time"`
}

type rawTrace struct {
	VantagePoint struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"vantage_point"`
	CommonFields struct {
		GroupID       string          `json:"group_id"`
		TimeFormat    string          `json:"time_format"`
		ReferenceTime json.RawMessage `json:"reference_time"`
	} `json:"common_fields"`
}

// parseHeader decodes and checks the header record. It runs once per file,
// so plain encoding/json is fine here.
func parseHeader(rec []byte) (Header, error) {
	var h Header
	// Validate with the same scanner as events so that a cut-off header is
	// reported as such.
	s := scanner{b: rec}
	if err := s.skip(); err != nil {
		return h, fmt.Errorf("%w: first record is not JSON: %w", ErrNotQlog, err)
	}
	if err := s.finish(); err != nil {
		return h, fmt.Errorf("%w: first record is not JSON: %w", ErrNotQlog, err)
	}
	if bytes.TrimSpace(rec)[0] != '{' {
		return h, fmt.Errorf("%w: first record is not a JSON object", ErrNotQlog)
	}
	var raw rawHeader
	if err := json.Unmarshal(rec, &raw); err != nil {
		return h, fmt.Errorf("%w: header: %v", ErrNotQlog, err)
	}
	switch {
	case raw.Traces != nil:
		return h, fmt.Errorf("%w: this is a whole-file JSON qlog (\"traces\" array); only sequential qlog (JSON-SEQ, .sqlog) is read", ErrNotQlog)
	case raw.Name != nil && raw.Time != nil:
		return h, fmt.Errorf("%w: the first record is an event; the header record is missing", ErrNotQlog)
	case raw.Trace == nil:
		return h, fmt.Errorf("%w: header has no \"trace\" object", ErrNotQlog)
	case raw.QlogVersion == "" && raw.FileSchema == "":
		return h, fmt.Errorf("%w: header has neither qlog_version nor file_schema", ErrNotQlog)
	}
	switch raw.QlogFormat {
	case "", "JSON-SEQ", "NDJSON":
	default:
		return h, fmt.Errorf("%w: qlog_format %q (want JSON-SEQ)", ErrNotQlog, raw.QlogFormat)
	}
	var tr rawTrace
	if err := json.Unmarshal(*raw.Trace, &tr); err != nil {
		return h, fmt.Errorf("%w: header field trace: %v", ErrNotQlog, err)
	}
	h = Header{
		QlogVersion:  raw.QlogVersion,
		QlogFormat:   raw.QlogFormat,
		FileSchema:   raw.FileSchema,
		Title:        raw.Title,
		CodeVersion:  raw.CodeVersion,
		VantagePoint: tr.VantagePoint.Type,
		VantageName:  tr.VantagePoint.Name,
		GroupID:      tr.CommonFields.GroupID,
		TimeFormat:   tr.CommonFields.TimeFormat,
	}
	if err := h.setReferenceTime(tr.CommonFields.ReferenceTime); err != nil {
		return h, fmt.Errorf("%w: header field trace.common_fields.reference_time: %w", ErrNotQlog, err)
	}
	return h, nil
}

// setReferenceTime accepts both shapes: a number (ngtcp2, older drafts) or
// quic-go's {"clock_type", "epoch", "wall_clock_time"} object.
func (h *Header) setReferenceTime(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '{' {
		return json.Unmarshal(raw, &h.ReferenceMs)
	}
	var rt struct {
		WallClockTime string `json:"wall_clock_time"`
	}
	if err := json.Unmarshal(raw, &rt); err != nil {
		return err
	}
	if rt.WallClockTime == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, rt.WallClockTime)
	if err != nil {
		return fmt.Errorf("wall_clock_time: %w", err)
	}
	h.WallClock = t
	return nil
}
