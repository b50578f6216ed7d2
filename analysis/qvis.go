package analysis

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/dc-emu/emu/analysis/qlog"
)

// QvisExport reports what ExportQvis wrote.
type QvisExport struct {
	Events int // event records copied
	// HeaderChanged is false when the header already suited old qvis
	// builds (ngtcp2 output) and was copied as is.
	HeaderChanged bool
	// Dropped describes a cut-off last record that was left out ("" if none).
	Dropped string
}

// ExportQvis copies a sequential qlog so that qvis builds older than commit
// 0c93edf load it (qlog.md §6). Those builds parse a struct-valued
// reference_time (quic-go v0.65) as NaN and refuse the file; the fix is to
// the header record only: trace.common_fields.reference_time becomes a
// number (Unix-epoch milliseconds from wall_clock_time, or 0 without one),
// time_format "relative" is added, and qlog_version / qlog_format are set
// if missing (qvis rejects files without them). Every event record is
// copied byte for byte in JSON-SEQ framing (0x1E, record, LF), so the
// output keeps the .sqlog extension. A cut-off last record is left out, since
// qvis would abort on it.
func ExportQvis(dst io.Writer, src io.Reader, name string) (QvisExport, error) {
	var res QvisExport
	r, err := qlog.NewReader(src, name)
	if err != nil {
		return res, err
	}
	hdr, changed, err := qvisHeader(r.HeaderRecord(), r.Header())
	if err != nil {
		return res, fmt.Errorf("%s: header: %w", name, err)
	}
	res.HeaderChanged = changed
	w := bufio.NewWriterSize(dst, 256<<10)
	writeRecord(w, hdr)
	var ev qlog.Event
	for {
		err := r.Next(&ev)
		if err == io.EOF {
			break
		}
		if errors.Is(err, qlog.ErrTruncated) {
			res.Dropped = err.Error()
			break
		}
		if err != nil {
			return res, err
		}
		writeRecord(w, r.Record())
		res.Events++
	}
	return res, w.Flush()
}

func writeRecord(w *bufio.Writer, rec []byte) {
	w.WriteByte(0x1E)
	w.Write(rec)
	w.WriteByte('\n')
}

// qvisHeader rewrites the header record for old qvis builds. It returns
// the record unchanged when it already has a numeric reference_time, a
// time_format and the legacy version keys.
func qvisHeader(raw []byte, h qlog.Header) ([]byte, bool, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, false, err
	}
	var trace map[string]json.RawMessage
	if err := json.Unmarshal(top["trace"], &trace); err != nil {
		return nil, false, fmt.Errorf("trace: %w", err)
	}
	common := map[string]json.RawMessage{}
	if cf, ok := trace["common_fields"]; ok {
		if err := json.Unmarshal(cf, &common); err != nil {
			return nil, false, fmt.Errorf("trace.common_fields: %w", err)
		}
	}
	changed := false
	set := func(m map[string]json.RawMessage, key string, v any) {
		b, _ := json.Marshal(v)
		m[key] = b
		changed = true
	}
	if rt, ok := common["reference_time"]; !ok || len(rt) == 0 || rt[0] == '{' || string(rt) == "null" {
		ms := "0"
		if ns := h.WallClock.UnixNano(); !h.WallClock.IsZero() && ns > 0 {
			ms = fmt.Sprintf("%d.%06d", ns/1e6, ns%1e6) // exact, unlike a float64
		}
		set(common, "reference_time", json.Number(ms))
	}
	if _, ok := common["time_format"]; !ok {
		set(common, "time_format", "relative")
	}
	if _, ok := top["qlog_version"]; !ok {
		set(top, "qlog_version", "0.3")
	}
	if string(top["qlog_format"]) != `"JSON-SEQ"` { // the output is JSON-SEQ whatever came in
		set(top, "qlog_format", "JSON-SEQ")
	}
	if !changed {
		return raw, false, nil
	}
	var err error
	if trace["common_fields"], err = json.Marshal(common); err != nil {
		return nil, false, err
	}
	if top["trace"], err = json.Marshal(trace); err != nil {
		return nil, false, err
	}
	out, err := json.Marshal(top)
	return out, true, err
}
