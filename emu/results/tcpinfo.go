package results

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/netip"
	"strconv"
	"strings"
)

// TCPInfoHeader is the first line of a per-flow TCP_INFO log, the columns
// of TCPInfoRow in order. One file holds one connection: a plain TCP
// connection writes one row per sample with subflow 0, an MPTCP connection
// one row per subflow per sample with the kernel's subflow id (from 1).
const TCPInfoHeader = "t_s,subflow,local,remote,srtt_ms,rttvar_ms,min_rtt_ms,cwnd_bytes,in_flight_bytes," +
	"bytes_acked,bytes_sent,bytes_retrans,total_retrans,lost,delivery_rate_mbps,pacing_rate_mbps,cc"

// Unknown marks a counter the kernel did not report (its tcp_info was too
// short); the file leaves the cell empty. Float columns use NaN.
const Unknown int64 = -1

// TCPInfoRow is one sample of one TCP connection or MPTCP subflow, as the
// sender's kernel reports it (struct tcp_info).
type TCPInfoRow struct {
	// T is seconds since the run's t0 (t_s).
	T float64
	// Subflow is 0 for plain TCP, the MPTCP subflow id otherwise.
	Subflow uint32
	// Local and Remote are the subflow's addresses (the server's and the
	// client's); the zero value leaves the cell empty.
	Local, Remote netip.AddrPort
	// SRTTMs, RTTVarMs and MinRTTMs are the smoothed RTT, its variation and
	// the minimum RTT seen, in milliseconds (tcpi_rtt, tcpi_rttvar,
	// tcpi_min_rtt).
	SRTTMs, RTTVarMs, MinRTTMs float64
	// CwndBytes is snd_cwnd × snd_mss; InFlightBytes the segments in
	// flight (unacked − sacked − lost + retrans) × snd_mss.
	CwndBytes, InFlightBytes int64
	// BytesAcked, BytesSent and BytesRetrans are cumulative payload bytes
	// (bytes_sent includes retransmissions); TotalRetrans and Lost count
	// segments (retransmitted in total; currently marked lost).
	BytesAcked, BytesSent, BytesRetrans int64
	TotalRetrans, Lost                  int64
	// DeliveryRateMbps and PacingRateMbps are the kernel's delivery-rate
	// estimate and pacing rate, 10⁶ bit/s.
	DeliveryRateMbps, PacingRateMbps float64
	// CC is the congestion control of this connection or subflow as the
	// kernel reports it for the subflow itself; empty if unknown.
	CC string
}

// tcpInfoColumns is TCPInfoHeader split, for error messages.
var tcpInfoColumns = strings.Split(TCPInfoHeader, ",")

// TCPInfoWriter writes a TCP_INFO log through a buffer: a sampler at 10 ms
// must not make a system call per row (see rowWriter for its costs). It is
// not safe for concurrent use.
type TCPInfoWriter struct{ rw *rowWriter }

// NewTCPInfoWriter writes the header to w and returns a writer for rows.
func NewTCPInfoWriter(w io.Writer) *TCPInfoWriter {
	return &TCPInfoWriter{newRowWriter(w, TCPInfoHeader)}
}

// Write appends one row; it does not allocate. Errors stick: once one
// write fails, every later call returns that error.
func (w *TCPInfoWriter) Write(r TCPInfoRow) error {
	if w.rw.err != nil {
		return w.rw.err
	}
	b := w.rw.scratch[:0]
	b = appendFloat(b, r.T, 6)
	b = append(b, ',')
	b = strconv.AppendUint(b, uint64(r.Subflow), 10)
	b = append(b, ',')
	if r.Local.IsValid() {
		b = r.Local.AppendTo(b)
	}
	b = append(b, ',')
	if r.Remote.IsValid() {
		b = r.Remote.AppendTo(b)
	}
	for _, f := range [...]float64{r.SRTTMs, r.RTTVarMs, r.MinRTTMs} {
		b = append(b, ',')
		b = appendFloat(b, f, 3)
	}
	for _, n := range [...]int64{r.CwndBytes, r.InFlightBytes, r.BytesAcked, r.BytesSent, r.BytesRetrans, r.TotalRetrans, r.Lost} {
		b = append(b, ',')
		if n >= 0 {
			b = strconv.AppendInt(b, n, 10)
		}
	}
	for _, f := range [...]float64{r.DeliveryRateMbps, r.PacingRateMbps} {
		b = append(b, ',')
		b = appendFloat(b, f, 3)
	}
	b = append(b, ',')
	b = append(b, r.CC...)
	w.rw.row(b)
	return w.rw.err
}

// Flush writes out what is buffered.
func (w *TCPInfoWriter) Flush() error { return w.rw.Flush() }

// appendFloat writes f with prec decimals; NaN (unknown) writes nothing.
func appendFloat(b []byte, f float64, prec int) []byte {
	if math.IsNaN(f) {
		return b
	}
	return strconv.AppendFloat(b, f, 'f', prec, 64)
}

// ccName reports whether s can be a kernel congestion control name (or is
// empty).
func ccName(s string) bool {
	if len(s) >= 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

var (
	errNegative  = errors.New("negative")
	errNonFinite = errors.New("not a finite number")
)

// ReadTCPInfo reads a whole TCP_INFO log; name is used in errors. It
// rejects a wrong header, a wrong number of cells, bad numbers, negative
// values, bad addresses and times that go backwards for a subflow.
func ReadTCPInfo(r io.Reader, name string) ([]TCPInfoRow, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var rows []TCPInfoRow
	last := map[uint32]float64{}
	line := 0
	fail := func(col, val string, err error) error {
		return &ParseError{File: name, Line: line, Field: col, Value: cut([]byte(val)), Err: err}
	}
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			if string(text) != TCPInfoHeader {
				return nil, fail("header", string(text), fmt.Errorf("want %q", TCPInfoHeader))
			}
			continue
		}
		cells := bytes.Split(text, []byte{','})
		if len(cells) != len(tcpInfoColumns) {
			return nil, fail("row", string(text), fmt.Errorf("%d cells, want %d", len(cells), len(tcpInfoColumns)))
		}
		var row TCPInfoRow
		var err error
		col := 0
		next := func() string { s := string(cells[col]); col++; return s }
		float := func(optional bool) float64 {
			s := next()
			if err != nil {
				return 0
			}
			if s == "" && optional {
				return math.NaN()
			}
			f, perr := strconv.ParseFloat(s, 64)
			switch {
			case perr != nil:
				err = fail(tcpInfoColumns[col-1], s, perr)
			case math.IsNaN(f) || math.IsInf(f, 0):
				err = fail(tcpInfoColumns[col-1], s, errNonFinite)
			case f < 0:
				err = fail(tcpInfoColumns[col-1], s, errNegative)
			}
			return f
		}
		integer := func() int64 {
			s := next()
			if err != nil || s == "" {
				return Unknown
			}
			n, perr := strconv.ParseInt(s, 10, 64)
			switch {
			case perr != nil:
				err = fail(tcpInfoColumns[col-1], s, perr)
			case n < 0:
				err = fail(tcpInfoColumns[col-1], s, errNegative)
			}
			return n
		}
		addr := func() netip.AddrPort {
			s := next()
			if err != nil || s == "" {
				return netip.AddrPort{}
			}
			a, perr := netip.ParseAddrPort(s)
			if perr != nil {
				err = fail(tcpInfoColumns[col-1], s, perr)
			}
			return a
		}
		row.T = float(false)
		if s := next(); err == nil {
			n, perr := strconv.ParseUint(s, 10, 32)
			if perr != nil {
				err = fail("subflow", s, perr)
			}
			row.Subflow = uint32(n)
		}
		row.Local, row.Remote = addr(), addr()
		row.SRTTMs, row.RTTVarMs, row.MinRTTMs = float(true), float(true), float(true)
		row.CwndBytes, row.InFlightBytes = integer(), integer()
		row.BytesAcked, row.BytesSent, row.BytesRetrans = integer(), integer(), integer()
		row.TotalRetrans, row.Lost = integer(), integer()
		row.DeliveryRateMbps, row.PacingRateMbps = float(true), float(true)
		if s := next(); err == nil {
			if !ccName(s) {
				err = fail("cc", s, errors.New("not a congestion control name"))
			}
			row.CC = s
		}
		if err != nil {
			return nil, err
		}
		if t, seen := last[row.Subflow]; seen && row.T < t {
			return nil, fail("t_s", string(cells[0]), fmt.Errorf("before the previous sample of subflow %d (%g s)", row.Subflow, t))
		}
		last[row.Subflow] = row.T
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if line == 0 {
		return nil, &ParseError{File: name, Line: 1, Field: "header", Err: errors.New("empty file")}
	}
	return rows, nil
}
