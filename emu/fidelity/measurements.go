package fidelity

import "time"

// Measurements are the figures a run collects for its verdict. Every list
// may be empty (a run without delay lines has none to check).
type Measurements struct {
	DelayLines   []DelayLine   `json:"delay_lines"`
	Players      []Player      `json:"players,omitempty"`
	RateLimiters []RateLimiter `json:"rate_limiters"`
	Threads      []Thread      `json:"threads"`
	Endpoints    []Endpoint    `json:"endpoints"`
	BatchPaths   []BatchPath   `json:"batch_paths,omitempty"`
	// HostSteal is the fraction of all the host's CPU time the
	// hypervisor gave to others over the run (/proc/stat steal over
	// total); HostStealKnown is false where it could not be read.
	HostSteal      float64 `json:"host_steal"`
	HostStealKnown bool    `json:"host_steal_known"`
	// SoftirqMeanWait is the longest mean run-queue wait per timeslice of
	// the host's ksoftirqd threads over the run (procstat.Ksoftirqd):
	// packet processing the kernel defers waits that long for a CPU.
	// SoftirqKnown is false where it could not be read.
	SoftirqMeanWait time.Duration `json:"softirq_mean_wait_ns"`
	SoftirqKnown    bool          `json:"softirq_known"`
}

// DelayLine is one delay line's release lateness: release time minus due
// time of each packet it released (delayline.Counters.Late).
type DelayLine struct {
	Direction string        `json:"direction"` // e.g. link1.down
	Delay     time.Duration `json:"delay_ns"`  // configured one-way delay
	LateP50   time.Duration `json:"late_p50_ns"`
	LateP99   time.Duration `json:"late_p99_ns"`
	LateMax   time.Duration `json:"late_max_ns"`
	Released  uint64        `json:"released"`
}

// Player is one trace player of a direction: how late each change it made
// after the first took effect, from the time the trace gave it to the end
// of applying it (link.Dir.PlayerLate).
type Player struct {
	Direction string        `json:"direction"` // e.g. link1.down
	Kind      string        `json:"kind"`      // PlayerRate or PlayerImpairments
	Changes   uint64        `json:"changes"`
	LateP50   time.Duration `json:"late_p50_ns"`
	LateP99   time.Duration `json:"late_p99_ns"`
	LateMax   time.Duration `json:"late_max_ns"`
}

// Player kinds.
const (
	PlayerRate        = "rate"        // the rate limiter's rate
	PlayerImpairments = "impairments" // the delay line's delay and loss
)

// RateLimiter is one rate limiter's delivery while its queue provably
// held more than it was to send (linkstats.Saturated).
type RateLimiter struct {
	Direction        string  `json:"direction"`
	SaturatedSeconds float64 `json:"saturated_s"`
	DeliveredBps     float64 `json:"delivered_bps"`  // IP layer
	ConfiguredBps    float64 `json:"configured_bps"` // IP layer, over the same time
}

// Thread is one of the emulator's own packet threads (a delay-line loop, a
// PDCP proxy) over the run (procstat.Between of two readings).
type Thread struct {
	Name string `json:"name"` // e.g. "delay link1.down", "pdcp tx"
	// CPU is its CPU time over the wall time (1: a whole core).
	CPU float64 `json:"cpu"`
	// Wait is its run-queue wait over the wall time, MeanWait that wait
	// per timeslice (per wake-up, nearly: how long it waited for a CPU).
	Wait     float64       `json:"wait"`
	MeanWait time.Duration `json:"mean_wait_ns"`
	// Kernel is the share of its CPU time spent in the kernel (10 ms
	// resolution; 0 when under a tick was counted).
	Kernel float64 `json:"kernel"`
}

// Endpoint is one endpoint process of a flow over the flow's lifetime.
type Endpoint struct {
	Flow string `json:"flow"`
	Role string `json:"role"` // server or client
	// CPU is the process's CPU time over the flow's wall time (1: a whole
	// core; a process with several busy threads can exceed it).
	CPU float64 `json:"cpu"`
	// Wait is the time its threads spent runnable but waiting for a CPU,
	// summed over them, over the flow's wall time: an endpoint held back
	// by others' work, which its own CPU figure cannot show.
	Wait float64 `json:"wait"`
}

// BatchPath is one direction of the PDCP proxies:
// what it lost outside the links, which only a proxy that did not keep up
// loses, and how long bytes waited for the receiving proxy.
type BatchPath struct {
	Direction   string `json:"direction"` // down or up
	SocketDrops uint64 `json:"socket_drops"`
	TUNRefused  uint64 `json:"tun_refused"`
	TUNDropped  uint64 `json:"tun_dropped"` // by the transmitting gateway's TUN
	// Seconds counts the seconds with traffic for which the receiving
	// gateway's proxy estimated how long the bytes it read had waited in
	// its socket; WaitMean is that wait over the run, WaitMax the
	// worst second's.
	Seconds           uint64        `json:"seconds"`
	WaitMean, WaitMax time.Duration `json:"-"`
	// Delay is the shorter of the direction's links' delays: the wait is
	// judged as a delay line's lateness on that link would be.
	Delay time.Duration `json:"-"`
}
