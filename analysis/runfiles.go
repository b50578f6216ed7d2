package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// Summary mirrors a run's summary.json (docs/results.md). Fields the
// analysis does not use are kept raw or left out; unknown fields are
// ignored so the runner can add more.
type Summary struct {
	Run       string                  `json:"run"`
	Scenario  string                  `json:"scenario"`
	Status    string                  `json:"status"` // ok | failed | interrupted
	Error     string                  `json:"error"`
	Seed      json.Number             `json:"seed"`
	Started   string                  `json:"started"`
	DurationS NullFloat               `json:"duration_s"`
	Config    json.RawMessage         `json:"config"`
	Flows     []SummaryFlow           `json:"flows"`
	JFI       *NullFloat              `json:"jfi"`
	Links     []SummaryLink           `json:"links"`
	PDCP      map[string]PDCPCounters `json:"pdcp"`
}

// SummaryFlow is one entry of summary.json's "flows".
type SummaryFlow struct {
	Name        string     `json:"name"`
	Path        string     `json:"path"`
	Proto       string     `json:"proto"`
	ServerImpl  string     `json:"server_impl"`
	ClientImpl  string     `json:"client_impl"`
	CC          string     `json:"cc"`
	StartS      float64    `json:"start_s"`
	Bytes       int64      `json:"bytes"`
	Seconds     NullFloat  `json:"seconds"`
	GoodputMbps *NullFloat `json:"goodput_mbps"`
	Complete    bool       `json:"complete"`
	Error       string     `json:"error"`
}

// SummaryLink is one entry of summary.json's "links".
type SummaryLink struct {
	Name           string    `json:"name"`
	Dir            string    `json:"dir"`
	CapacityMbps   NullFloat `json:"capacity_mbps"`
	ThroughputMbps NullFloat `json:"throughput_mbps"`
	Utilization    NullFloat `json:"utilization"`
}

// PDCPCounters are one direction's PDCP receiver/transmitter counters, as
// summary.json and counters.json write them.
type PDCPCounters struct {
	TxLink1             int64              `json:"tx_link1"`
	TxLink2             int64              `json:"tx_link2"`
	Delivered           int64              `json:"delivered"`
	Reordered           int64              `json:"reordered"`
	Held                int64              `json:"held"`
	ExpiredDeliveries   int64              `json:"expired_deliveries"`
	DuplicatesDiscarded int64              `json:"duplicates_discarded"`
	OutOfWindow         int64              `json:"out_of_window"`
	MaxBuffer           int64              `json:"max_buffer"`
	HoldMs              map[string]float64 `json:"hold_ms,omitempty"`
}

// Counters mirrors counters.json; only the PDCP part is interpreted.
type Counters struct {
	PDCP  map[string]PDCPCounters    `json:"pdcp"`
	Links map[string]json.RawMessage `json:"links"`
}

// readJSONFile decodes name from fsys into v. Syntax and type errors name
// the file, the line and column, and the field.
func readJSONFile(fsys fs.FS, name string, v any) error {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("%s: empty file", name)
	}
	err = json.Unmarshal(data, v)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		line, col := lineCol(data, se.Offset-1) // Offset counts the bytes read, the bad one included
		return fmt.Errorf("%s:%d:%d: %w", name, line, col, err)
	case errors.As(err, &te):
		line, col := lineCol(data, te.Offset-1)
		return fmt.Errorf("%s:%d:%d: field %s: %s where %s was expected: %w", name, line, col, te.Field, te.Value, te.Type, err)
	default:
		return fmt.Errorf("%s: %w", name, err)
	}
}

func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	prefix := data[:off]
	line = bytes.Count(prefix, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(prefix, '\n') + 1) + 1
	return line, col
}
