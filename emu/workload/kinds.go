package workload

import "time"

// Flow kinds (flows.N.kind).
const (
	KindBulk    = "bulk"    // one download (or upload) of flows.N.size or for flows.N.duration
	KindRR      = "rr"      // request/response transactions
	KindCBR     = "cbr"     // constant-rate UDP datagrams
	KindObjects = "objects" // a set of objects, each with its completion time
)

// Directions of a flow (flows.N.direction): who sends the data.
const (
	DirDown = "down" // the server sends (a download)
	DirUp   = "up"   // the client sends (an upload)
)

// Resumption modes of a QUIC or TLS connection (flows.N.resume).
const (
	ResumeOff  = "off"  // a full handshake
	Resume1RTT = "1rtt" // TLS session resumption: a full round trip, no certificate
	Resume0RTT = "0rtt" // QUIC 0-RTT: the request goes in the client's first flight
	// ResumeBDP resumes the TLS session and the path's state: the measured
	// TCP connections start with the window and pacing rate the first one
	// measured (docs/zero-rtt.md, "Resumed path state").
	ResumeBDP = "bdp"
)

// ProtoUDP is the protocol of cbr flows: plain UDP datagrams.
const ProtoUDP = "udp"

// Bounds of the workload parameters.
const (
	// MaxTransaction bounds an rr request or response body.
	MaxTransaction = 1e9
	// CBRHeader is the smallest cbr payload: the header every datagram
	// carries (magic, sequence number, count, send time).
	CBRHeader = 20
	// MaxCBRPacket is the largest cbr payload that fits a 1500-byte
	// packet with its IPv4 and UDP headers.
	MaxCBRPacket = 1472
	// MinCBRInterval and MaxCBRInterval bound the time between datagrams.
	MinCBRInterval = 50 * time.Microsecond
	MaxCBRInterval = 10 * time.Second
)

// DefaultCBRInterval is the datagram interval of a cbr flow with neither
// an interval nor a rate (VoIP: 20 ms).
const DefaultCBRInterval = 20 * time.Millisecond
