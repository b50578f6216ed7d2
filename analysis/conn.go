package analysis

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/dc-emu/emu/analysis/qlog"
	"github.com/dc-emu/emu/internal/stats"
)

// QlogOptions configures AnalyzeQlog.
type QlogOptions struct {
	// Bin is the width of the time-series bins. Zero means 100 ms. With
	// ngtcp2's whole-millisecond timestamps use at least a few tens of ms.
	Bin time.Duration
}

// DefaultBin is the time-series bin width when none is given (the same
// 100 ms as a run's timeseries.csv).
const DefaultBin = 100 * time.Millisecond

// maxBins caps the time series so that one absurd timestamp in a damaged
// file cannot allocate gigabytes; at 100 ms this is over 14 hours.
const maxBins = 1 << 19

// ConnAnalysis is what one qlog file (one side of one QUIC connection)
// says. Times are milliseconds since the trace's reference time unless a
// name says otherwise.
type ConnAnalysis struct {
	File      string    `json:"file"`
	Vantage   string    `json:"vantage_point"` // client | server | transport | ""
	Producer  string    `json:"producer"`
	GroupID   string    `json:"group_id,omitempty"`
	WallClock time.Time `json:"wall_clock_time,omitzero"` // absolute time of time 0, when known
	Events    int       `json:"events"`
	// DurationMs is the time of the last event.
	DurationMs float64 `json:"duration_ms"`
	// Truncated is set when the file ended in a cut-off record: the
	// figures cover the complete records before it.
	Truncated string `json:"truncated,omitempty"`
	// Notes are other caveats about the figures.
	Notes []string `json:"notes,omitempty"`

	Totals     ConnTotals   `json:"totals"`
	Reordering ReorderStats `json:"reordering"`
	// CongestionStates lists congestion_state_updated events (quic-go only;
	// ngtcp2 0.12 does not log them).
	CongestionStates []StateChange `json:"congestion_states"`
	BinMs            float64       `json:"bin_ms"`
	Bins             []ConnBin     `json:"bins"`

	// Metrics is every change of the recovery metrics at full resolution
	// (a step function), for the congestion plot. Not written to JSON.
	Metrics []MetricsPoint `json:"-"`
	// LossTimes are the times of packet_lost events, for the same plot.
	LossTimes []float64   `json:"-"`
	Header    qlog.Header `json:"-"`
}

// ConnTotals are the per-file totals.
type ConnTotals struct {
	// BytesReceived counts unique stream bytes received (all streams; a
	// retransmitted or duplicated range counts once).
	BytesReceived int64 `json:"bytes_received"`
	// StreamBytesSent counts stream frame bytes sent, retransmissions included.
	StreamBytesSent     int64 `json:"stream_bytes_sent"`
	PacketsSent         int64 `json:"packets_sent"`
	PacketsReceived     int64 `json:"packets_received"`
	PacketsLost         int64 `json:"packets_lost"`
	PacketBytesSent     int64 `json:"packet_bytes_sent"`     // Σ raw.length sent
	PacketBytesReceived int64 `json:"packet_bytes_received"` // Σ raw.length received
	SpuriousLosses      int64 `json:"spurious_losses"`
	DroppedPackets      int64 `json:"dropped_packets"`
	// CongestionEvents counts entries into the recovery state.
	CongestionEvents int64 `json:"congestion_events"`
	MaxCwndBytes     int64 `json:"max_cwnd_bytes"`
	// RTT statistics over the metrics_updated events that carry an RTT
	// sample (those with min_rtt: before its first sample ngtcp2 logs its
	// initial guess as smoothed_rtt, quic-go logs no RTT at all).
	RTTSamples   int       `json:"srtt_samples"`
	MeanSRTTMs   NullFloat `json:"mean_srtt_ms"`
	P95SRTTMs    NullFloat `json:"p95_srtt_ms"`
	MinRTTMs     NullFloat `json:"min_rtt_ms"` // the last min_rtt logged
	MaxLatestRTT NullFloat `json:"max_latest_rtt_ms"`
	// ReorderedPackets counts 1-RTT packets received below the highest
	// packet number seen (RFC 4737); details in ConnAnalysis.Reordering.
	ReorderedPackets int64 `json:"reordered_packets"`
	// Goodput is BytesReceived over the time from the first to the last
	// packet that brought new stream bytes; Throughput is Σ raw.length of
	// the 1-RTT packets received in that same window.
	FirstByteMs NullFloat `json:"first_byte_ms"`
	// AckFramesSent counts the ACK frames of the packets sent, and
	// DataPacketsReceived the packets received with stream frames: on a
	// download's receiving side, how often it acknowledged the data
	// (FlowAnalysis.AcksPerDataPacket). Not in analysis.json's qlog
	// totals; the flows give them where a receiver's ACK threshold was set.
	AckFramesSent       int64     `json:"-"`
	DataPacketsReceived int64     `json:"-"`
	LastByteMs          NullFloat `json:"last_byte_ms"`
	GoodputMbps         NullFloat `json:"goodput_mbps"`
	ThroughputMbps      NullFloat `json:"throughput_mbps"`
}

// StateChange is one congestion_state_updated event.
type StateChange struct {
	TimeMs float64 `json:"t_ms"`
	State  string  `json:"state"`
}

// MetricsPoint is the recovery state after one metrics_updated event. RTT
// fields are NaN until the first RTT sample.
type MetricsPoint struct {
	TimeMs        float64
	Cwnd          int64
	BytesInFlight int64
	MinRTT        float64
	SmoothedRTT   float64
	LatestRTT     float64
}

// ConnBin is one bin of the time series. Rates are Mbit/s over the bin's
// length (the last bin's real length); recovery metrics are sampled at
// the bin's end (step function, null before the first value).
type ConnBin struct {
	TEndS           float64   `json:"t_s"`
	GoodputMbps     float64   `json:"goodput_mbps"`
	RecvMbps        float64   `json:"recv_mbps"` // QUIC packets received (raw.length)
	SendMbps        float64   `json:"send_mbps"` // QUIC packets sent
	PacketsSent     int64     `json:"packets_sent"`
	PacketsReceived int64     `json:"packets_received"`
	PacketsLost     int64     `json:"packets_lost"`
	CwndBytes       NullFloat `json:"cwnd_bytes"`
	BytesInFlight   NullFloat `json:"bytes_in_flight"`
	SRTTMs          NullFloat `json:"srtt_ms"`
	MinRTTMs        NullFloat `json:"min_rtt_ms"`
	LatestRTTMs     NullFloat `json:"latest_rtt_ms"`
}

// AnalyzeQlog reads one qlog file from src and extracts its time series and
// totals in a single streaming pass. name is the file name for messages.
//
// When the file ends in a cut-off record the result covers everything
// before it, Truncated says so, and the returned error wraps ErrTruncated:
// callers that accept partial files check errors.Is(err, ErrTruncated) and
// use the result. On any other error the result is nil.
func AnalyzeQlog(src io.Reader, name string, opt QlogOptions) (*ConnAnalysis, error) {
	r, err := qlog.NewReader(src, name)
	if err != nil {
		return nil, err
	}
	x := newConnExtractor(opt)
	var ev qlog.Event
	for {
		err = r.Next(&ev)
		if err != nil {
			break
		}
		x.add(&ev)
	}
	a := x.finish(r.Header(), name, r.Events())
	switch {
	case err == io.EOF:
		return a, nil
	case errors.Is(err, qlog.ErrTruncated):
		a.Truncated = err.Error()
		return a, err
	default:
		return nil, err
	}
}

// connExtractor accumulates one file's events; see AnalyzeQlog.
type connExtractor struct {
	binMs   float64
	tot     ConnTotals
	lastT   float64
	streams map[int64]*intervalSet
	reorder Reordering

	bins    []binAcc
	sampled int // bins whose end-of-bin metrics are fixed

	cur     MetricsPoint
	haveCur bool
	metrics []MetricsPoint
	srtt    []float64
	losses  []float64
	states  []StateChange
	// Goodput window: times of the first and last packet with new stream
	// bytes, and the running Σ raw.length of 1-RTT packets received.
	firstByte, lastByte        float64
	haveBytes                  bool
	rawAtFirst, rawAtLast, raw int64
	// Σ raw.length of 1-RTT packets received before rawTime, so that the
	// window includes every packet with the first byte's timestamp
	// (ngtcp2's whole milliseconds make ties common).
	rawBefore int64
	rawTime   float64
}

type binAcc struct {
	good, recv, sent     int64
	pSent, pRecv, pLost  int64
	cwnd, bif            NullFloat
	srtt, minRTT, latest NullFloat
}

func newConnExtractor(opt QlogOptions) *connExtractor {
	bin := opt.Bin
	if bin <= 0 {
		bin = DefaultBin
	}
	return &connExtractor{
		binMs:   float64(bin) / float64(time.Millisecond),
		streams: make(map[int64]*intervalSet),
		tot:     ConnTotals{MaxLatestRTT: unknown()},
		cur:     MetricsPoint{MinRTT: nan(), SmoothedRTT: nan(), LatestRTT: nan()},
	}
}

// bin returns the accumulator for time t, or nil beyond maxBins.
func (x *connExtractor) bin(t float64) *binAcc {
	k := 0
	if t > 0 {
		f := t / x.binMs
		if f >= maxBins {
			return nil
		}
		k = int(f)
	}
	for len(x.bins) <= k {
		x.bins = append(x.bins, binAcc{})
	}
	return &x.bins[k]
}

// sampleUpTo fixes the end-of-bin metrics of every bin that ended before t,
// with the values that held until t.
func (x *connExtractor) sampleUpTo(t float64) {
	for x.sampled < maxBins && float64(x.sampled+1)*x.binMs < t {
		if x.sampled >= len(x.bins) {
			x.bins = append(x.bins, binAcc{})
		}
		x.sampleBin(&x.bins[x.sampled])
		x.sampled++
	}
}

func (x *connExtractor) sampleBin(b *binAcc) {
	b.cwnd, b.bif = unknown(), unknown()
	if x.haveCur {
		b.cwnd, b.bif = NullFloat(x.cur.Cwnd), NullFloat(x.cur.BytesInFlight)
	}
	b.srtt, b.minRTT, b.latest = NullFloat(x.cur.SmoothedRTT), NullFloat(x.cur.MinRTT), NullFloat(x.cur.LatestRTT)
}

func (x *connExtractor) add(ev *qlog.Event) {
	t := ev.Time
	x.lastT = max(x.lastT, t)
	switch ev.Kind {
	case qlog.KindPacketSent:
		x.tot.PacketsSent++
		x.tot.PacketBytesSent += ev.Length
		x.tot.AckFramesSent += int64(ev.AckFrames)
		for _, f := range ev.Frames {
			x.tot.StreamBytesSent += f.Length
		}
		if b := x.bin(t); b != nil {
			b.pSent++
			b.sent += ev.Length
		}
	case qlog.KindPacketReceived:
		x.received(ev)
	case qlog.KindPacketLost:
		x.tot.PacketsLost++
		x.losses = append(x.losses, t)
		if b := x.bin(t); b != nil {
			b.pLost++
		}
	case qlog.KindPacketDropped:
		x.tot.DroppedPackets++
	case qlog.KindSpuriousLoss:
		x.tot.SpuriousLosses++
	case qlog.KindCongestionStateUpdated:
		x.states = append(x.states, StateChange{TimeMs: t, State: ev.State})
		if ev.State == "recovery" {
			x.tot.CongestionEvents++
		}
	case qlog.KindMetricsUpdated:
		x.metricsUpdated(t, &ev.Metrics)
	}
}

func (x *connExtractor) received(ev *qlog.Event) {
	t := ev.Time
	x.tot.PacketsReceived++
	x.tot.PacketBytesReceived += ev.Length
	if len(ev.Frames) > 0 {
		x.tot.DataPacketsReceived++
	}
	var fresh int64
	for _, f := range ev.Frames {
		set := x.streams[f.StreamID]
		if set == nil {
			set = &intervalSet{}
			x.streams[f.StreamID] = set
		}
		fresh += set.add(f.Offset, f.Offset+f.Length)
	}
	x.tot.BytesReceived += fresh
	if ev.PacketType == qlog.Packet1RTT {
		if t > x.rawTime {
			x.rawBefore, x.rawTime = x.raw, t
		}
		x.raw += ev.Length
		if ev.PacketNumber >= 0 {
			x.reorder.Add(ev.PacketNumber, t)
		}
	}
	if fresh > 0 {
		if !x.haveBytes {
			x.haveBytes, x.firstByte = true, t
			x.rawAtFirst = x.raw
			if t == x.rawTime {
				x.rawAtFirst = x.rawBefore
			}
		}
		x.lastByte = t
	}
	if x.haveBytes && t == x.lastByte {
		x.rawAtLast = x.raw
	}
	if b := x.bin(t); b != nil {
		b.pRecv++
		b.recv += ev.Length
		b.good += fresh
	}
}

func (x *connExtractor) metricsUpdated(t float64, m *qlog.Metrics) {
	const tracked = qlog.HasMinRTT | qlog.HasSmoothedRTT | qlog.HasLatestRTT | qlog.HasCongestionWindow | qlog.HasBytesInFlight
	if m.Has&tracked == 0 {
		return // pto_count-only form: nothing we track changed
	}
	x.sampleUpTo(t)
	p := x.cur
	p.TimeMs = t
	if m.Has&qlog.HasCongestionWindow != 0 {
		p.Cwnd = m.CongestionWindow
		x.tot.MaxCwndBytes = max(x.tot.MaxCwndBytes, m.CongestionWindow)
	}
	if m.Has&qlog.HasBytesInFlight != 0 {
		p.BytesInFlight = m.BytesInFlight
	}
	if m.Has&qlog.HasMinRTT != 0 {
		p.MinRTT = m.MinRTT
		if m.Has&qlog.HasSmoothedRTT != 0 {
			x.srtt = append(x.srtt, m.SmoothedRTT)
		}
	}
	if m.Has&qlog.HasSmoothedRTT != 0 {
		p.SmoothedRTT = m.SmoothedRTT
	}
	if m.Has&qlog.HasLatestRTT != 0 {
		p.LatestRTT = m.LatestRTT
		if m.Has&qlog.HasMinRTT != 0 && !(float64(x.tot.MaxLatestRTT) >= m.LatestRTT) { // NaN-safe max
			x.tot.MaxLatestRTT = NullFloat(m.LatestRTT)
		}
	}
	// ngtcp2 logs one event per packet, mostly repeating the last values:
	// keep only changes.
	changed := !x.haveCur || p.Cwnd != x.cur.Cwnd || p.BytesInFlight != x.cur.BytesInFlight ||
		!sameFloat(p.MinRTT, x.cur.MinRTT) || !sameFloat(p.SmoothedRTT, x.cur.SmoothedRTT) ||
		!sameFloat(p.LatestRTT, x.cur.LatestRTT)
	x.cur, x.haveCur = p, true
	if changed {
		x.metrics = append(x.metrics, p)
	}
}

func (x *connExtractor) finish(h qlog.Header, name string, events int) *ConnAnalysis {
	a := &ConnAnalysis{
		File:             name,
		Vantage:          h.VantagePoint,
		Producer:         h.Producer(),
		GroupID:          h.GroupID,
		WallClock:        h.WallClock,
		Events:           events,
		DurationMs:       x.lastT,
		Reordering:       x.reorder.Stats(),
		CongestionStates: x.states,
		BinMs:            x.binMs,
		Metrics:          x.metrics,
		LossTimes:        x.losses,
		Header:           h,
	}
	if a.CongestionStates == nil {
		a.CongestionStates = []StateChange{}
	}
	tot := x.tot
	tot.ReorderedPackets = a.Reordering.Reordered
	tot.RTTSamples = len(x.srtt)
	tot.MeanSRTTMs, tot.P95SRTTMs, tot.MinRTTMs = unknown(), unknown(), unknown()
	if len(x.srtt) > 0 {
		tot.MeanSRTTMs = NullFloat(stats.Mean(x.srtt))
		tot.P95SRTTMs = NullFloat(stats.Percentile(x.srtt, 95))
	}
	if !isNaN(x.cur.MinRTT) {
		tot.MinRTTMs = NullFloat(x.cur.MinRTT)
	}
	tot.FirstByteMs, tot.LastByteMs, tot.GoodputMbps, tot.ThroughputMbps = unknown(), unknown(), unknown(), unknown()
	if x.haveBytes {
		tot.FirstByteMs, tot.LastByteMs = NullFloat(x.firstByte), NullFloat(x.lastByte)
		if d := x.lastByte - x.firstByte; d > 0 {
			tot.GoodputMbps = NullFloat(mbps(tot.BytesReceived, d))
			tot.ThroughputMbps = NullFloat(mbps(x.rawAtLast-x.rawAtFirst, d))
		}
	}
	a.Totals = tot
	a.Bins = x.finishBins()
	if x.lastT >= maxBins*x.binMs {
		a.Notes = append(a.Notes, fmt.Sprintf("time series stops at %d bins (%.0f s); events up to %.0f s are in the totals only",
			maxBins, maxBins*x.binMs/1000, x.lastT/1000))
	}
	return a
}

// finishBins converts the accumulators to rates. Bins run from time 0 to
// the last event; a last bin shorter than half a bin is dropped (its rate
// would be noise), a longer one is scaled by its real length.
func (x *connExtractor) finishBins() []ConnBin {
	if len(x.bins) == 0 && x.lastT <= 0 {
		return []ConnBin{}
	}
	n := min(int(x.lastT/x.binMs)+1, maxBins)
	for len(x.bins) < n {
		x.bins = append(x.bins, binAcc{})
	}
	for ; x.sampled < n; x.sampled++ {
		x.sampleBin(&x.bins[x.sampled])
	}
	out := make([]ConnBin, 0, n)
	for k := 0; k < n; k++ {
		b := &x.bins[k]
		start := float64(k) * x.binMs
		length := x.binMs
		if k == n-1 {
			length = x.lastT - start
			if length < x.binMs/2 {
				if k > 0 {
					break
				}
				length = max(length, 1e-3)
			}
		}
		out = append(out, ConnBin{
			TEndS:           (start + x.binMs) / 1000,
			GoodputMbps:     mbps(b.good, length),
			RecvMbps:        mbps(b.recv, length),
			SendMbps:        mbps(b.sent, length),
			PacketsSent:     b.pSent,
			PacketsReceived: b.pRecv,
			PacketsLost:     b.pLost,
			CwndBytes:       b.cwnd,
			BytesInFlight:   b.bif,
			SRTTMs:          b.srtt,
			MinRTTMs:        b.minRTT,
			LatestRTTMs:     b.latest,
		})
	}
	return out
}

// mbps converts bytes over ms milliseconds to Mbit/s.
func mbps(bytes int64, ms float64) float64 {
	return float64(bytes) * 8 / (ms / 1000) / 1e6
}

func nan() float64                { return float64(unknown()) }
func isNaN(v float64) bool        { return v != v }
func sameFloat(a, b float64) bool { return a == b || (isNaN(a) && isNaN(b)) }

// String gives a one-line description for logs and errors.
func (a *ConnAnalysis) String() string {
	return fmt.Sprintf("%s (%s %s, %d events)", a.File, a.Producer, a.Vantage, a.Events)
}
