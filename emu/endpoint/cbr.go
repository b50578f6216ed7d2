package endpoint

import (
	"encoding/binary"
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/workload"
)

// Constant-rate UDP (cbr). Datagrams carry a workload.CBRHeader-byte header
// and are padded to the flow's packet size:
//
//	data:    E3 'C' 'B' 'D' | seq uint32 | count uint32 | send time int64 Unix ns
//	hello:   E3 'C' 'B' 'H' | packet uint32 | count uint32 | interval int64 ns
//	end:     E3 'C' 'B' 'E' | count uint32 (datagrams sent) | 0 | 0
//	query:   E3 'C' 'B' 'Q' | 0 ...
//	report:  E3 'C' 'B' 'R' | JSON cbrReport
//
// all integers big endian. Down, the client sends hellos (every
// helloEvery until the first datagram arrives) and the server sends count
// datagrams to the hello's source, one every interval from the first
// hello, then endRepeats end datagrams. Up, the client sends the
// datagrams and end datagrams itself, then queries (every helloEvery) the
// server's receiver, which answers a report of what arrived. The receiver
// stamps each datagram with its kernel receive time (SO_TIMESTAMPNS, the
// clock the send stamps are on), and stops at the first of: every
// datagram arrived, endLinger after an end datagram, the idle timeout.

// Datagram kinds (the fourth magic byte).
const (
	cbrData   = 'D'
	cbrHello  = 'H'
	cbrEnd    = 'E'
	cbrQuery  = 'Q'
	cbrReport = 'R'
)

const (
	// helloEvery is how often an unanswered hello or query is repeated.
	helloEvery = 200 * time.Millisecond
	// endRepeats end datagrams follow the last one, endGap apart, so one
	// loss does not leave the receiver waiting for its idle timeout.
	endRepeats = 3
	endGap     = 10 * time.Millisecond
	// endLinger is how long a receiver waits after an end datagram for
	// datagrams still on their way (reordered behind it).
	endLinger = 250 * time.Millisecond
)

// cbrReportMax bounds a report datagram.
const cbrReportMax = 1400

// cbrMagic starts every datagram; the fourth byte is its kind.
var cbrMagic = [3]byte{0xE3, 'C', 'B'}

// putCBR writes the header of a datagram of kind k into b[:CBRHeader].
func putCBR(b []byte, k byte, a, c uint32, t int64) {
	_ = b[workload.CBRHeader-1]
	copy(b, cbrMagic[:])
	b[3] = k
	binary.BigEndian.PutUint32(b[4:], a)
	binary.BigEndian.PutUint32(b[8:], c)
	binary.BigEndian.PutUint64(b[12:], uint64(t))
}

// parseCBR reads a datagram's header; ok is false for one that is not emu's.
func parseCBR(b []byte) (k byte, a, c uint32, t int64, ok bool) {
	if len(b) < 4 || [3]byte(b[:3]) != cbrMagic {
		return 0, 0, 0, 0, false
	}
	k = b[3]
	if k == cbrReport {
		return k, 0, 0, 0, true
	}
	if len(b) < workload.CBRHeader {
		return 0, 0, 0, 0, false
	}
	return k, binary.BigEndian.Uint32(b[4:]), binary.BigEndian.Uint32(b[8:]), int64(binary.BigEndian.Uint64(b[12:])), true
}

// cbrResult is what an uploading client's receiver (the server) reports.
type cbrResult struct {
	Sent       int64               `json:"sent"`
	Received   int64               `json:"received"`
	Duplicates int64               `json:"duplicates"`
	Reordered  int64               `json:"reordered"`
	JitterMs   float64             `json:"jitter_ms"`
	OWD        *results.DelayStats `json:"owd_ms,omitempty"`
}

func reportOf(st results.CBRStats) cbrResult {
	r := cbrResult{Sent: st.Sent, Received: st.Received, Duplicates: st.Duplicates, Reordered: st.Reordered, JitterMs: st.JitterMs}
	if st.OWDOK {
		o := st.OWD
		r.OWD = &o
	}
	return r
}

// cbrReceiver accounts for the datagrams of one flow as they arrive. It
// belongs to one goroutine.
type cbrReceiver struct {
	m        *meter // received payload bytes (progress, receive log)
	pkts     []results.CBRPacket
	log      *results.CBRWriter
	count    int64 // datagrams the sender will send, from their headers
	distinct map[uint32]bool
	ended    time.Time // first end datagram; zero before
	sent     int64     // from the end datagram
}

func newCBRReceiver(m *meter, log *results.CBRWriter) *cbrReceiver {
	return &cbrReceiver{m: m, log: log, pkts: make([]results.CBRPacket, 0, 4096), distinct: make(map[uint32]bool, 4096)}
}

// take accounts for one datagram of n bytes received at at; it returns
// false for datagrams that are not data or end.
func (r *cbrReceiver) take(b []byte, at time.Time) bool {
	k, a, c, t, ok := parseCBR(b)
	if !ok {
		return false
	}
	switch k {
	case cbrData:
		p := results.CBRPacket{Seq: a, Sent: r.m.since(time.Unix(0, t)), Recv: r.m.since(at)}
		r.count = int64(c)
		r.pkts = append(r.pkts, p)
		r.distinct[a] = true
		r.m.add(len(b), at)
		if r.log != nil {
			r.log.Write(p)
		}
	case cbrEnd:
		if r.ended.IsZero() {
			r.ended, r.sent = at, int64(a)
		}
	default:
		return false
	}
	return true
}

// done reports whether the receiver has all it will get.
func (r *cbrReceiver) done(now time.Time) bool {
	if r.count > 0 && int64(len(r.distinct)) >= r.count {
		return true
	}
	return !r.ended.IsZero() && now.Sub(r.ended) >= endLinger
}

// stats summarises what arrived.
func (r *cbrReceiver) stats() results.CBRStats {
	sent := r.sent
	if sent == 0 {
		sent = r.count
	}
	return results.SummarizeCBR(r.pkts, sent)
}

// cbrWork is the FlowWorkload of a cbr flow from its receiver's report.
func cbrWork(up bool, rep cbrResult) *results.FlowWorkload {
	w := &results.FlowWorkload{Kind: string(KindCBR), Direction: "down"}
	if up {
		w.Direction = "up"
	}
	jit, reord, sent, recv := results.Round3(rep.JitterMs), rep.Reordered, rep.Sent, rep.Received
	w.JitterMs, w.Reordered, w.Sent, w.Received = &jit, &reord, &sent, &recv
	loss := 0.0
	if sent > 0 {
		loss = max(0, 1-float64(recv)/float64(sent))
	}
	loss = float64(int64(loss*1e6+0.5)) / 1e6
	w.Loss = &loss
	return w
}
