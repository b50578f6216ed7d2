package results

import (
	"time"

	"github.com/dc-emu/emu/emu/fidelity"
)

// Summary is a run's summary.json (docs/results.md): what the terminal
// summary prints, what sweeps aggregate, traceable to the run's seed and
// configuration.
type Summary struct {
	Run       string                  `json:"run"`
	Scenario  string                  `json:"scenario"`
	Status    string                  `json:"status"` // ok, failed, interrupted
	Error     string                  `json:"error,omitempty"`
	Seed      uint64                  `json:"seed"`
	Started   time.Time               `json:"started"`
	DurationS float64                 `json:"duration_s"`
	Config    map[string]string       `json:"config"`
	Versions  Versions                `json:"versions"`
	Flows     []FlowResult            `json:"flows"`
	JFI       float64                 `json:"jfi"`
	Links     []LinkResult            `json:"links"`
	PDCP      map[string]PDCPCounters `json:"pdcp,omitempty"`
	// Fidelity says whether the emulation kept up with what it was asked
	// to do (emu/fidelity): status ok or degraded, and every check with its
	// figure and threshold. Absent in results of emu versions before it.
	Fidelity *fidelity.Fidelity `json:"fidelity,omitempty"`
	// Captures are the run.pcap captures, with their drops.
	Captures []CaptureResult `json:"captures,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
}

// Run statuses.
const (
	StatusOK          = "ok"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// FlowResult is one flow's totals.
type FlowResult struct {
	// FlowWorkload is the flow's kind and what it measured (workload.go).
	FlowWorkload

	Name       string `json:"name"`
	Path       string `json:"path"`
	Proto      string `json:"proto"`
	ServerImpl string `json:"server_impl"`
	ClientImpl string `json:"client_impl"`
	CC         string `json:"cc"`
	RcvBuf     string `json:"rcvbuf"`
	// RcvBufBytes is the QUIC client socket's SO_RCVBUF as the kernel
	// reported it, what RcvBuf came to (0: not a QUIC client).
	RcvBufBytes int `json:"rcvbuf_bytes,omitempty"`
	// AckThresh is the QUIC receiver's ACK threshold (flow.ack_thresh):
	// ack-eliciting packets it took before an immediate ACK; 0 (absent)
	// where the receiver takes none (quic-go, kernel TCP).
	AckThresh   int     `json:"ack_thresh,omitempty"`
	StartS      float64 `json:"start_s"`
	Bytes       int64   `json:"bytes"`
	Seconds     float64 `json:"seconds"`
	GoodputMbps float64 `json:"goodput_mbps"`
	Complete    bool    `json:"complete"`
	Error       string  `json:"error,omitempty"`
	// RTTMs and OWDMs are the flow's round-trip and one-way delays
	// (docs/results.md); nil (null) where the flow has none.
	RTTMs *DelayStats `json:"rtt_ms"`
	OWDMs *DelayStats `json:"owd_ms"`
	// Subflows and SubflowTotals are an MPTCP flow's subflows, from the
	// server's TCP_INFO log (subflows.go).
	Subflows      []SubflowResult `json:"subflows,omitempty"`
	SubflowTotals *SubflowTotals  `json:"subflow_totals,omitempty"`
}

// LinkResult is one link direction's capacity and use over the run.
type LinkResult struct {
	Name string `json:"name"` // link1, link2
	Dir  string `json:"dir"`  // down, up
	// RateSource is "trace" when the direction's rate followed Trace, else
	// "constant".
	RateSource     string  `json:"rate_source"`
	Trace          string  `json:"trace,omitempty"`
	CapacityMbps   float64 `json:"capacity_mbps"`
	ThroughputMbps float64 `json:"throughput_mbps"`
	Utilization    float64 `json:"utilization"`
	// Drops are the queue's drops at its limit: a GSO super-packet once
	// (docs/results.md).
	Drops uint64 `json:"queue_drops"`
	// QueueDelayMs is how long bytes waited in the rate limiter's queue,
	// measured from its counters as QueueDelayMethod says (N: the
	// readings); QueueDelayDerivedMs is backlog ÷ rate at each reading,
	// derived, for comparison. Absent when the run took no readings.
	QueueDelayMs        *DelayStats `json:"queue_delay_ms,omitempty"`
	QueueDelayMethod    string      `json:"queue_delay_method,omitempty"`
	QueueDelayDerivedMs *DelayStats `json:"queue_delay_derived_ms,omitempty"`
	// DelayJumpsS are the times (s since the epoch, as in timeseries.csv)
	// the direction's delay trace jumped during the run, by emu trace
	// info's rule; DelayJumpPeriodS their period when regular. Absent
	// without a delay trace or jumps.
	DelayJumpsS      []float64 `json:"delay_jumps_s,omitempty"`
	DelayJumpPeriodS float64   `json:"delay_jump_period_s,omitempty"`
}

// Versions records what produced a result, so every figure can be traced to
// the software that measured it.
type Versions struct {
	Emu    string `json:"emu"`
	Go     string `json:"go"`
	Kernel string `json:"kernel"`
	QuicGo string `json:"quic_go"`
	Ngtcp2 string `json:"ngtcp2,omitempty"`
}

// PDCPCounters is the summary of one direction's proxies (docs/results.md).
type PDCPCounters struct {
	TxLink1 uint64 `json:"tx_link1"`
	TxLink2 uint64 `json:"tx_link2"`
	// TxPassed is what the NFQUEUE transmit proxy passed unnumbered: runs
	// from before issue #49 have it; the one data path tunnels other
	// packets instead (Batch.TunnelSent).
	TxPassed            uint64             `json:"tx_passed,omitempty"`
	Received            uint64             `json:"received"`
	Delivered           uint64             `json:"delivered"`
	Reordered           uint64             `json:"reordered"`
	Held                uint64             `json:"held"`
	ExpiredDeliveries   uint64             `json:"expired_deliveries"`
	Expiries            uint64             `json:"expiries"`
	GivenUp             uint64             `json:"given_up"`
	DuplicatesDiscarded uint64             `json:"duplicates_discarded"`
	OutOfWindow         uint64             `json:"out_of_window"`
	Malformed           uint64             `json:"malformed"`
	MaxBuffer           int                `json:"max_buffer"`
	HoldMs              map[string]float64 `json:"hold_ms"`
	ProxyTiming
	// Batch is the batch path's (nil in runs from before issue #49 that
	// ran the NFQUEUE proxies).
	Batch *BatchPath `json:"batch,omitempty"`
	// FlowControl is DC flow control's account (nil with dc.fc=off).
	FlowControl *FlowControl `json:"flow_control,omitempty"`
}

// ConfigRecord is a run's config.json: the resolved configuration as
// dotted keys with their values, written before the flows start.
type ConfigRecord struct {
	Run      string            `json:"run"`
	ID       string            `json:"id"`
	Scenario string            `json:"scenario"`
	Seed     uint64            `json:"seed"`
	Started  time.Time         `json:"started"`
	Params   map[string]string `json:"params"`
	Versions Versions          `json:"versions"`
	Backends map[string]string `json:"backends"`
}
