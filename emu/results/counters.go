package results

// Counters is a run's counters.json: the raw counters behind the summary,
// per PDCP direction and per link direction ("link1.down", …).
type Counters struct {
	PDCP    map[string]PDCPCounters `json:"pdcp"`
	Links   map[string]LinkCounters `json:"links"`
	Sampler *SamplerCounters        `json:"sampler,omitempty"`
	// PEP is the split-TCP proxy's, when pep.enabled.
	PEP *PEPCounters `json:"pep,omitempty"`
	// Captures are the run.pcap captures by "<node>-<iface>".
	Captures map[string]CaptureResult `json:"captures,omitempty"`
	// GC are the garbage collections of the emulator's process while the
	// run's emulation was up (the process's: runs side by side share them).
	GC []GCCollection `json:"gc,omitempty"`
}

// GCCollection is one garbage collection of the emulator's process, run
// with its real-time packet threads demoted (docs/design.md).
type GCCollection struct {
	TS      float64 `json:"t_s"` // start, seconds since the run's start
	TookMs  float64 `json:"took_ms"`
	Demoted int     `json:"demoted"` // real-time threads demoted for it
}

// LinkCounters are one link direction's counters at the end of a run.
type LinkCounters struct {
	// RateBps is the rate limiter's capacity at the end (0 in an outage).
	RateBps   float64            `json:"rate_bps"`
	Qdisc     *QdiscCounters     `json:"qdisc,omitempty"`
	DelayLine *DelayLineCounters `json:"delay_line,omitempty"`
	// TracePlayer is how late the direction's trace changes took effect;
	// nil where no trace drives it.
	TracePlayer *TracePlayerCounters `json:"trace_player,omitempty"`
}

// TracePlayerCounters are a direction's trace players: the one that sets
// the rate limiter's rate and the one that sets the delay line's delay and
// loss (nil where the direction has no such trace).
type TracePlayerCounters struct {
	Rate        *PlayerCounters `json:"rate,omitempty"`
	Impairments *PlayerCounters `json:"impairments,omitempty"`
}

// PlayerCounters are one player's changes after the first and how late
// each took effect, in microseconds (p50, p99, max): from the time the
// trace gave it to the end of applying it (HTB's netlink change for a
// rate, the delay line's parameters for a delay or a loss).
type PlayerCounters struct {
	Changes uint64             `json:"changes"`
	LateUs  map[string]float64 `json:"late_us"`
}

// QdiscCounters are the rate limiter's kernel counters: what the HTB class
// sent (Ethernet frames) and what its bfifo leaf dropped and holds.
type QdiscCounters struct {
	Bytes   uint64 `json:"bytes"`
	Packets uint64 `json:"packets"` // a GSO super-packet as its segments
	// Drops counts a GSO super-packet once (the kernel's count), so a
	// drop of a sender's super-packet loses several packets.
	Drops          uint64 `json:"drops"`
	BacklogBytes   uint64 `json:"backlog_bytes"`
	BacklogPackets uint64 `json:"backlog_packets"`
}

// DelayLineCounters are one delay line's counters: packets in, dropped at
// random, released, and dropped by the kernel before the line saw them
// (Overflow), with release lateness quantiles in microseconds, and how
// long packets waited between the kernel stamping them on arrival and the
// line reading them (ReadLagUs: a release late by about its read lag was
// late because the packet was not read in time, not held too long).
type DelayLineCounters struct {
	In       uint64 `json:"in"`
	Lost     uint64 `json:"lost"`
	Released uint64 `json:"released"`
	Overflow uint64 `json:"overflow"`
	// FIFOHeld counts packets held behind an earlier, later-due one: as a
	// delay trace's delay falls, a FIFO link cannot let them overtake.
	FIFOHeld  uint64             `json:"fifo_held"`
	LateUs    map[string]float64 `json:"late_us"`
	ReadLagUs map[string]float64 `json:"read_lag_us,omitempty"`
}

// PEPCounters are the split-TCP proxy's (pep.* keys): the connections it
// split and the bytes it carried each way, and per connection what the
// kernel's TCP_INFO of its satellite-side socket said when it closed.
type PEPCounters struct {
	Connections uint64 `json:"connections"`
	// Failed counts connections it could not split: the server refused
	// or the proxy's socket failed.
	Failed    uint64 `json:"failed"`
	BytesDown uint64 `json:"bytes_down"` // server to client
	BytesUp   uint64 `json:"bytes_up"`   // client to server
	// Conns is each split connection's satellite side, in closing order.
	Conns []PEPConn `json:"conns,omitempty"`
}

// PEPConn is one split connection's satellite-side socket at its close.
type PEPConn struct {
	Client           string  `json:"client"` // address:port
	BytesDown        uint64  `json:"bytes_down"`
	BytesUp          uint64  `json:"bytes_up"`
	SRTTMs           float64 `json:"srtt_ms"`
	MinRTTMs         float64 `json:"min_rtt_ms"`
	CwndSegments     uint32  `json:"cwnd_segments"`
	DeliveryRateMbps float64 `json:"delivery_rate_mbps"`
	TotalRetrans     uint32  `json:"total_retrans"`
}
