package qlog

// EventKind says which qlog event a record holds, for the events the
// analysis uses. Matching ignores the category before the colon: quic-go
// v0.65 mixes "transport:", "recovery:" and "quic:" prefixes and newer
// drafts move events between them.
type EventKind uint8

const (
	KindOther EventKind = iota
	KindPacketSent
	KindPacketReceived
	KindPacketLost
	KindPacketDropped
	KindMetricsUpdated
	KindCongestionStateUpdated
	KindSpuriousLoss
	KindConnectionClosed
)

var kindNames = [...]string{
	KindOther:                  "other",
	KindPacketSent:             "packet_sent",
	KindPacketReceived:         "packet_received",
	KindPacketLost:             "packet_lost",
	KindPacketDropped:          "packet_dropped",
	KindMetricsUpdated:         "metrics_updated",
	KindCongestionStateUpdated: "congestion_state_updated",
	KindSpuriousLoss:           "spurious_loss",
	KindConnectionClosed:       "connection_closed",
}

func (k EventKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// kindOf maps an event name such as "recovery:metrics_updated" to its kind.
func kindOf(name []byte) EventKind {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == ':' {
			name = name[i+1:]
			break
		}
	}
	switch string(name) {
	case "packet_sent":
		return KindPacketSent
	case "packet_received":
		return KindPacketReceived
	case "packet_lost":
		return KindPacketLost
	case "packet_dropped":
		return KindPacketDropped
	case "metrics_updated", "recovery_metrics_updated":
		return KindMetricsUpdated
	case "congestion_state_updated":
		return KindCongestionStateUpdated
	case "spurious_loss":
		return KindSpuriousLoss
	case "connection_closed":
		return KindConnectionClosed
	}
	return KindOther
}

// PacketType is a QUIC packet's header type as qlog names it.
type PacketType uint8

const (
	PacketUnknown PacketType = iota
	PacketInitial
	PacketHandshake
	Packet0RTT
	Packet1RTT
	PacketRetry
	PacketVersionNegotiation
	PacketStatelessReset
)

var packetTypeNames = [...]string{"unknown", "initial", "handshake", "0RTT", "1RTT", "retry", "version_negotiation", "stateless_reset"}

func (t PacketType) String() string {
	if int(t) < len(packetTypeNames) {
		return packetTypeNames[t]
	}
	return "unknown"
}

func packetTypeOf(raw []byte) PacketType {
	switch string(raw) {
	case "1RTT":
		return Packet1RTT
	case "initial":
		return PacketInitial
	case "handshake":
		return PacketHandshake
	case "0RTT":
		return Packet0RTT
	case "retry":
		return PacketRetry
	case "version_negotiation":
		return PacketVersionNegotiation
	case "stateless_reset":
		return PacketStatelessReset
	}
	return PacketUnknown
}

// StreamFrame is the part of a qlog stream frame the goodput needs.
type StreamFrame struct {
	StreamID int64
	Offset   int64
	Length   int64
	Fin      bool
}

// MetricField is a bit set of the fields a metrics_updated event carried.
// Absent fields mean "unchanged" (quic-go's pto_count-only form), never 0.
type MetricField uint16

const (
	HasMinRTT MetricField = 1 << iota
	HasSmoothedRTT
	HasLatestRTT
	HasRTTVariance
	HasCongestionWindow
	HasBytesInFlight
	HasPacketsInFlight
	HasSSThresh
	HasPTOCount
)

// Metrics is the content of one metrics_updated event. RTTs are in
// milliseconds, window and flight sizes in bytes.
type Metrics struct {
	Has              MetricField
	MinRTT           float64
	SmoothedRTT      float64
	LatestRTT        float64
	RTTVariance      float64
	CongestionWindow int64
	BytesInFlight    int64
	PacketsInFlight  int64
	SSThresh         int64
	PTOCount         int64
}

// Event is one decoded qlog event: the fields the analysis uses, nothing
// else. The reader reuses one Event (and its Frames backing array) for every
// record, so nothing is allocated per event; copy what must outlive the next
// call to Next.
type Event struct {
	// Time is milliseconds since the trace's reference time (float in
	// quic-go, whole milliseconds in ngtcp2 0.12).
	Time float64
	Kind EventKind

	// Packet events (sent, received, lost, dropped).
	PacketType   PacketType
	PacketNumber int64 // -1 when the header has none
	Length       int64 // raw.length: the whole QUIC packet, 0 when absent
	Frames       []StreamFrame
	AckFrames    int    // ACK frames in the packet (frame_type "ack")
	Trigger      string // packet_lost / packet_dropped trigger, "" when absent

	// metrics_updated.
	Metrics Metrics

	// congestion_state_updated: the new state.
	State string
}

func (ev *Event) reset() {
	frames := ev.Frames[:0]
	*ev = Event{PacketNumber: -1, Frames: frames}
}

// intern returns a constant string for the values qlog producers use, so
// states and triggers cost no allocation; anything else is copied.
func intern(raw []byte) string {
	switch string(raw) {
	case "slow_start":
		return "slow_start"
	case "congestion_avoidance":
		return "congestion_avoidance"
	case "recovery":
		return "recovery"
	case "application_limited":
		return "application_limited"
	case "reordering_threshold":
		return "reordering_threshold"
	case "time_threshold":
		return "time_threshold"
	case "pto_expired":
		return "pto_expired"
	case "duplicate":
		return "duplicate"
	case "":
		return ""
	}
	return string(raw)
}
