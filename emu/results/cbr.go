package results

import (
	"io"
	"math"
	"time"
)

// CBRHeader is the first line of a cbr flow's datagram log
// (flows/<flow>.cbr.csv), written by the receiver: one row per datagram in
// the order they arrived. seq is the sender's sequence number (from 0),
// sent_s its send stamp and recv_s the receiver's kernel receive time, both
// in seconds since the run's t0 (one host clock), owd_ms their difference.
// Times are to the microsecond.
const CBRHeader = "seq,sent_s,recv_s,owd_ms"

// CBRPacket is one datagram a cbr receiver got.
type CBRPacket struct {
	Seq  uint32
	Sent time.Duration // send stamp, since t0
	Recv time.Duration // arrival, since t0
}

// CBRWriter writes a datagram log; see rowWriter for its costs.
type CBRWriter struct{ rw *rowWriter }

// NewCBRWriter starts a datagram log on w with the header line.
func NewCBRWriter(w io.Writer) *CBRWriter { return &CBRWriter{newRowWriter(w, CBRHeader)} }

// Write appends one row.
func (w *CBRWriter) Write(p CBRPacket) {
	b := w.rw.scratch[:0]
	b = appendUint(b, uint64(p.Seq))
	b = append(b, ',')
	b = appendMicros(b, p.Sent, 6)
	b = append(b, ',')
	b = appendMicros(b, p.Recv, 6)
	b = append(b, ',')
	b = appendMicros(b, p.Recv.Round(time.Microsecond)-p.Sent.Round(time.Microsecond), 3)
	w.rw.row(b)
}

// Flush writes out the buffered rows and returns the first error.
func (w *CBRWriter) Flush() error { return w.rw.Flush() }

// ReadCBRFile reads the datagram log at path.
func ReadCBRFile(path string) ([]CBRPacket, error) { return readFile(path, "cbr log", ReadCBR) }

// ReadCBR reads a datagram log; name is the file name errors give. Rows
// are in arrival order: recv_s never decreases.
func ReadCBR(r io.Reader, name string) ([]CBRPacket, error) {
	return readRows(r, name, CBRHeader, func(rr *rowReader) (p CBRPacket, err error) {
		seq, err := rr.int(0, "seq", 0, math.MaxUint32)
		if err != nil {
			return p, err
		}
		p.Seq = uint32(seq)
		if p.Sent, err = rr.signedSeconds(1, "sent_s", 1); err != nil {
			return p, err
		}
		if p.Recv, err = rr.signedSeconds(2, "recv_s", 1); err != nil {
			return p, err
		}
		_, err = rr.signedSeconds(3, "owd_ms", 1e-3)
		return p, err
	}, func(rr *rowReader, prev, p CBRPacket) error {
		if p.Recv < prev.Recv {
			return rr.fail("recv_s", rr.fields[2], ErrBackwards)
		}
		return nil
	})
}

func appendUint(b []byte, n uint64) []byte {
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(b, tmp[i:]...)
}

// Jitter is the interarrival jitter estimator of RFC 3550 (§6.4.1, code in
// A.8): for consecutive arrivals i−1, i with send times S and arrival times
// R, D = (R_i − R_{i−1}) − (S_i − S_{i−1}) and J ← J + (|D| − J)/16. The
// zero value is ready; it belongs to one goroutine and does not allocate.
type Jitter struct {
	j       float64 // nanoseconds
	transit time.Duration
	have    bool
}

// Add takes the next datagram in arrival order.
func (j *Jitter) Add(sent, recv time.Duration) {
	transit := recv - sent
	if j.have {
		d := float64(transit - j.transit)
		j.j += (math.Abs(d) - j.j) / 16
	}
	j.transit, j.have = transit, true
}

// Value is the current estimate.
func (j *Jitter) Value() time.Duration { return time.Duration(math.Round(j.j)) }

// CBRStats summarises a cbr flow as its receiver saw it.
type CBRStats struct {
	// Sent is how many datagrams the sender sent, Received how many
	// distinct ones arrived, Duplicates how many arrived again.
	Sent, Received, Duplicates int64
	// Reordered counts datagrams that arrived after one with a higher
	// sequence number (RFC 4737's reordered packets).
	Reordered int64
	// Loss is 1 − Received/Sent (0 when nothing was sent).
	Loss float64
	// JitterMs is the RFC 3550 jitter after the last arrival.
	JitterMs float64
	// OWD is the one-way delay of the distinct datagrams; OWDOK is false
	// when none arrived.
	OWD   DelayStats
	OWDOK bool
}

// SummarizeCBR summarises the datagrams of a flow that sent sent of them,
// in arrival order. A duplicate counts only as a duplicate: it is left out
// of the delays, the jitter and the reordering.
func SummarizeCBR(pkts []CBRPacket, sent int64) CBRStats {
	st := CBRStats{Sent: sent}
	seen := make(map[uint32]bool, len(pkts))
	owd := make([]float64, 0, len(pkts))
	var jit Jitter
	var highest uint32
	for i, p := range pkts {
		if seen[p.Seq] {
			st.Duplicates++
			continue
		}
		seen[p.Seq] = true
		st.Received++
		if i > 0 && p.Seq < highest {
			st.Reordered++
		}
		highest = max(highest, p.Seq)
		jit.Add(p.Sent, p.Recv)
		owd = append(owd, msOf(p.Recv-p.Sent))
	}
	if sent > 0 {
		st.Loss = max(0, 1-float64(st.Received)/float64(sent))
	}
	st.JitterMs = msOf(jit.Value())
	st.OWD, st.OWDOK = SummarizeDelays(owd)
	return st
}
