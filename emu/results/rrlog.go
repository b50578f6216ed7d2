package results

import (
	"io"
	"time"
)

// RRHeader is the first line of an rr flow's transaction log
// (flows/<flow>.rr.csv): one row per completed transaction, in the order
// they completed. t_s is when the request was handed to the transport, in
// seconds since the run's t0; latency_ms from then to the response's last
// byte; handshake_ms the set-up of the connection the transaction opened,
// empty when it used an open one. Times are to the microsecond.
const RRHeader = "t_s,latency_ms,handshake_ms"

// RRRow is one transaction.
type RRRow struct {
	T       time.Duration // request sent, since t0
	Latency time.Duration // request sent → response complete
	// Handshake is the set-up of the connection opened for the
	// transaction; NewConn says whether there was one.
	Handshake time.Duration
	NewConn   bool
}

// RRWriter writes a transaction log; see rowWriter for its costs.
type RRWriter struct{ rw *rowWriter }

// NewRRWriter starts a transaction log on w with the header line.
func NewRRWriter(w io.Writer) *RRWriter { return &RRWriter{newRowWriter(w, RRHeader)} }

// Write appends one row.
func (w *RRWriter) Write(r RRRow) {
	b := appendMicros(w.rw.scratch[:0], r.T, 6)
	b = append(b, ',')
	b = appendMicros(b, r.Latency, 3)
	b = append(b, ',')
	b = appendOptMicros(b, r.Handshake, r.NewConn, 3)
	w.rw.row(b)
}

// Flush writes out the buffered rows and returns the first error.
func (w *RRWriter) Flush() error { return w.rw.Flush() }

// ReadRRFile reads the transaction log at path.
func ReadRRFile(path string) ([]RRRow, error) { return readFile(path, "rr log", ReadRR) }

// ReadRR reads a transaction log; name is the file name errors give.
func ReadRR(r io.Reader, name string) ([]RRRow, error) {
	return readRows(r, name, RRHeader, func(rr *rowReader) (row RRRow, err error) {
		if row.T, err = rr.seconds(0, "t_s", 1); err != nil {
			return row, err
		}
		if row.Latency, err = rr.seconds(1, "latency_ms", 1e-3); err != nil {
			return row, err
		}
		row.Handshake, row.NewConn, err = rr.optSeconds(2, "handshake_ms", 1e-3)
		return row, err
	}, nil)
}

// SummarizeRR returns the latency statistics of transactions (false
// without any) and those of the set-up of the connections they opened
// (nil when none did).
func SummarizeRR(rows []RRRow) (latency DelayStats, ok bool, handshake *DelayStats) {
	lat := make([]float64, 0, len(rows))
	var hs []float64
	for _, r := range rows {
		lat = append(lat, msOf(r.Latency))
		if r.NewConn {
			hs = append(hs, msOf(r.Handshake))
		}
	}
	latency, ok = SummarizeDelays(lat)
	if st, any := SummarizeDelays(hs); any {
		handshake = &st
	}
	return latency, ok, handshake
}
