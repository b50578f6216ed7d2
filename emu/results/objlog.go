package results

import (
	"bufio"
	"bytes"
	"io"
	"slices"
	"time"
)

// ObjectsHeader is the first line of an objects flow's log
// (flows/<flow>.objects.csv): one row per object in the order they
// completed. index is the object's number (from 0, in the order they were
// asked for), size its bytes, start_s when it was asked for in seconds
// since the run's t0, fct_s how long until its last byte (or until it
// failed), bytes what arrived, handshake_ms the set-up of the connection
// opened for it (empty when it used an open one), resumed and zero_rtt
// (0 or 1) how that connection was set up, fallback (0 or 1) whether it
// fell back from a resumed path state (resume bdp with resume_check).
const ObjectsHeader = "index,size,start_s,fct_s,bytes,handshake_ms,resumed,zero_rtt,fallback"

// objectsHeaderV1 is the header of objects logs written before the
// fallback column; ReadObjects still reads them.
const objectsHeaderV1 = "index,size,start_s,fct_s,bytes,handshake_ms,resumed,zero_rtt"

// ObjectRow is one object of an objects flow.
type ObjectRow struct {
	Index     int
	Size      int64
	Start     time.Duration // since t0
	FCT       time.Duration
	Bytes     int64
	Handshake time.Duration
	NewConn   bool // Handshake is set
	Resumed   bool
	ZeroRTT   bool
	Fallback  bool
}

// Complete reports whether every byte of the object arrived.
func (r ObjectRow) Complete() bool { return r.Bytes == r.Size }

// ObjectsWriter writes an objects log; see rowWriter for its costs.
type ObjectsWriter struct{ rw *rowWriter }

// NewObjectsWriter starts an objects log on w with the header line.
func NewObjectsWriter(w io.Writer) *ObjectsWriter {
	return &ObjectsWriter{newRowWriter(w, ObjectsHeader)}
}

// Write appends one row.
func (w *ObjectsWriter) Write(r ObjectRow) {
	b := w.rw.scratch[:0]
	b = appendUint(b, uint64(r.Index))
	b = append(b, ',')
	b = appendUint(b, uint64(r.Size))
	b = append(b, ',')
	b = appendMicros(b, r.Start, 6)
	b = append(b, ',')
	b = appendMicros(b, r.FCT, 6)
	b = append(b, ',')
	b = appendUint(b, uint64(r.Bytes))
	b = append(b, ',')
	b = appendOptMicros(b, r.Handshake, r.NewConn, 3)
	b = append(b, ',', bit(r.Resumed), ',', bit(r.ZeroRTT), ',', bit(r.Fallback))
	w.rw.row(b)
}

func bit(v bool) byte {
	if v {
		return '1'
	}
	return '0'
}

// Flush writes out the buffered rows and returns the first error.
func (w *ObjectsWriter) Flush() error { return w.rw.Flush() }

// ReadObjectsFile reads the objects log at path.
func ReadObjectsFile(path string) ([]ObjectRow, error) {
	return readFile(path, "objects log", ReadObjects)
}

// ReadObjects reads an objects log; name is the file name errors give.
func ReadObjects(r io.Reader, name string) ([]ObjectRow, error) {
	br := bufio.NewReader(r)
	first, err := br.Peek(len(objectsHeaderV1) + 2)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, &ParseError{File: name, Line: 1, Err: err}
	}
	header := ObjectsHeader
	if line, _, _ := bytes.Cut(bytes.TrimPrefix(first, []byte("\ufeff")), []byte{'\n'}); string(bytes.TrimSuffix(line, []byte{'\r'})) == objectsHeaderV1 {
		header = objectsHeaderV1
	}
	return readRows(br, name, header, func(rr *rowReader) (row ObjectRow, err error) {
		idx, err := rr.int(0, "index", 0, 1<<31-1)
		if err != nil {
			return row, err
		}
		row.Index = int(idx)
		if row.Size, err = rr.int(1, "size", 0, 1<<50); err != nil {
			return row, err
		}
		if row.Start, err = rr.seconds(2, "start_s", 1); err != nil {
			return row, err
		}
		if row.FCT, err = rr.seconds(3, "fct_s", 1); err != nil {
			return row, err
		}
		if row.Bytes, err = rr.int(4, "bytes", 0, 1<<50); err != nil {
			return row, err
		}
		if row.Handshake, row.NewConn, err = rr.optSeconds(5, "handshake_ms", 1e-3); err != nil {
			return row, err
		}
		res, err := rr.int(6, "resumed", 0, 1)
		if err != nil {
			return row, err
		}
		zr, err := rr.int(7, "zero_rtt", 0, 1)
		row.Resumed, row.ZeroRTT = res == 1, zr == 1
		if err != nil || header == objectsHeaderV1 {
			return row, err
		}
		fb, err := rr.int(8, "fallback", 0, 1)
		row.Fallback = fb == 1
		return row, err
	}, nil)
}

// ObjectResults turns an objects log into the summary's objects, sorted
// by index; capacityMbps gives the bottleneck's mean capacity between two
// times since t0 (0 when unknown: utilization 0). It also returns the
// completion-time statistics of the complete objects (seconds; false
// without any).
func ObjectResults(rows []ObjectRow, capacityMbps func(from, to time.Duration) float64) ([]ObjectResult, DelayStats, bool) {
	out := make([]ObjectResult, len(rows))
	var fcts []float64
	for i, r := range rows {
		o := ObjectResult{Index: r.Index, Size: r.Size, StartS: Round6(r.Start.Seconds()), FCTS: Round6(r.FCT.Seconds()),
			Complete: r.Complete(), Resumed: r.Resumed, ZeroRTT: r.ZeroRTT, Fallback: r.Fallback}
		if r.FCT > 0 {
			o.GoodputMbps = Round3(float64(r.Bytes) * 8 / r.FCT.Seconds() / 1e6)
			if c := capacityMbps(r.Start, r.Start+r.FCT); c > 0 {
				o.Utilization = Round3(float64(r.Bytes) * 8 / r.FCT.Seconds() / 1e6 / c)
			}
		}
		if r.NewConn {
			ms := Round3(msOf(r.Handshake))
			o.HandshakeMs = &ms
		}
		if o.Complete {
			fcts = append(fcts, r.FCT.Seconds())
		}
		out[i] = o
	}
	// The log is in completion order; the summary lists objects as asked for.
	slices.SortStableFunc(out, func(a, b ObjectResult) int { return a.Index - b.Index })
	st, ok := SummarizeDelays(fcts)
	return out, st, ok
}

// Round6 rounds to six decimals (microseconds of seconds).
func Round6(v float64) float64 { return float64(int64(v*1e6+0.5)) / 1e6 }
