package results

// FlowWorkload is what a flow's kind measured besides its bytes and
// goodput, part of its FlowResult (docs/results.md). Fields of other kinds
// are absent.
type FlowWorkload struct {
	// Kind is bulk, rr, cbr or objects; Direction down (the server sends)
	// or up (the client sends).
	Kind      string `json:"kind"`
	Direction string `json:"direction"`

	// rr: transactions completed, and their latency from the request
	// handed to the transport to the last byte of the response.
	Transactions int         `json:"transactions,omitempty"`
	LatencyMs    *DelayStats `json:"latency_ms,omitempty"`
	// HandshakeMs is the connection set-up time of the connections an rr
	// or objects flow opened (a new one each, or a resumed one).
	HandshakeMs *DelayStats `json:"handshake_ms,omitempty"`

	// cbr: RFC 3550 interarrival jitter at the end of the flow, datagrams
	// sent and received, the fraction lost, and datagrams that arrived
	// after one with a higher sequence number. (Its one-way delays are
	// the flow's owd_ms, FlowResult.OWDMs.)
	JitterMs  *float64 `json:"jitter_ms,omitempty"`
	Sent      *int64   `json:"packets_sent,omitempty"`
	Received  *int64   `json:"packets_received,omitempty"`
	Loss      *float64 `json:"loss,omitempty"`
	Reordered *int64   `json:"reordered,omitempty"`

	// objects: the completion time of each object (seconds), and each.
	FCTS    *DelayStats    `json:"fct_s,omitempty"`
	Objects []ObjectResult `json:"objects,omitempty"`

	// Resume is what resumption did, for flows with resume 1rtt or 0rtt.
	Resume *ResumeResult `json:"resume,omitempty"`
}

// ObjectResult is one object of an objects flow.
type ObjectResult struct {
	// Index numbers the objects in the order they were asked for, from 0.
	Index int   `json:"index"`
	Size  int64 `json:"size"`
	// StartS is when the object was asked for, in seconds since the run's
	// start; FCTS how long it took until its last byte (a new
	// connection's set-up included).
	StartS      float64 `json:"start_s"`
	FCTS        float64 `json:"fct_s"`
	GoodputMbps float64 `json:"goodput_mbps"`
	// Utilization is GoodputMbps over the bottleneck's mean capacity while
	// the object was under way (the downlinks of its path).
	Utilization float64 `json:"utilization"`
	Complete    bool    `json:"complete"`
	// HandshakeMs is the set-up of the connection opened for the object;
	// absent when it reused one. Resumed and ZeroRTT say how it was set up.
	HandshakeMs *float64 `json:"handshake_ms,omitempty"`
	Resumed     bool     `json:"resumed,omitempty"`
	ZeroRTT     bool     `json:"zero_rtt,omitempty"`
	// Fallback (resume bdp with resume_check): the connection's first
	// round trip was acknowledged at under half the remembered rate, and
	// the server fell back to a normal start.
	Fallback bool `json:"fallback,omitempty"`
}

// ResumeResult is what a flow's session resumption did: the first
// connection, which only obtained a session ticket, and how many of the
// measured connections resumed the session and sent 0-RTT data.
type ResumeResult struct {
	Mode string `json:"mode"` // 1rtt or 0rtt
	// FirstHandshakeMs and FirstFCTS are the first connection's set-up and
	// the completion of its one small request.
	FirstHandshakeMs float64 `json:"first_handshake_ms"`
	FirstFCTS        float64 `json:"first_fct_s"`
	// Connections is how many measured connections were opened, Resumed
	// how many of them resumed the session, ZeroRTT how many had their
	// 0-RTT data accepted.
	Connections int `json:"connections"`
	Resumed     int `json:"resumed"`
	ZeroRTT     int `json:"zero_rtt"`
	// Path is the path state the first connection left (mode bdp).
	Path *PathState `json:"path,omitempty"`
}

// PathState is what a resume=bdp flow remembered of the path and how the
// measured connections were started with it (docs/zero-rtt.md, "Resumed
// path state").
type PathState struct {
	// MinRTTMs, Cwnd (segments of MSS bytes) and DeliveryMbps are the
	// first connection's TCP_INFO at its end, as its server read it;
	// BDPBytes is the delivery rate times the minimum RTT.
	MinRTTMs     float64 `json:"min_rtt_ms"`
	Cwnd         int     `json:"cwnd"`
	MSS          int     `json:"mss"`
	DeliveryMbps float64 `json:"delivery_mbps"`
	BDPBytes     int64   `json:"bdp_bytes"`
	// InitCwnd is the initcwnd (segments) of the server's route to the
	// client, min(Cwnd, BDPBytes/MSS); PacingMbps the SO_MAX_PACING_RATE
	// of the measured connections until their first round trip is over.
	InitCwnd   int     `json:"initcwnd"`
	PacingMbps float64 `json:"pacing_mbps"`
	// InitRwnd is the initrwnd (segments) of the client's route to the
	// server and RcvBuf the receive buffer (bytes, SO_RCVBUF) of its
	// measured connections, which open its advertised window.
	InitRwnd int   `json:"initrwnd"`
	RcvBuf   int64 `json:"rcvbuf"`
	// Check is resume_check; Fallbacks how many measured connections fell
	// back to a normal start.
	Check     bool `json:"check"`
	Fallbacks int  `json:"fallbacks"`
}

// Note counts one more measured connection, whether it resumed the
// session and had 0-RTT data accepted; a nil r (no resumption) counts
// nothing.
func (r *ResumeResult) Note(resumed, zeroRTT bool) {
	if r == nil {
		return
	}
	r.Connections++
	if resumed {
		r.Resumed++
	}
	if zeroRTT {
		r.ZeroRTT++
	}
}

// Latency, FCT and Handshake are the statistics of w, nil when w is nil
// or has none (for checks that go over every figure).
func (w *FlowWorkload) Latency() *DelayStats {
	if w == nil {
		return nil
	}
	return w.LatencyMs
}

func (w *FlowWorkload) FCT() *DelayStats {
	if w == nil {
		return nil
	}
	return w.FCTS
}

func (w *FlowWorkload) Handshake() *DelayStats {
	if w == nil {
		return nil
	}
	return w.HandshakeMs
}
