package emu

import (
	"time"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/linkstats"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runloop"
	"github.com/dc-emu/emu/tracefmt"
)

// record is what a run recorded.
type record struct {
	cfg      config.Config
	name     string // the run's name: its directory's
	started  time.Time
	took     time.Duration
	outcome  runloop.Outcome
	err      error // why the run failed or was interrupted
	versions results.Versions
	flows    []flowRecord // by cfg.Flows
	dirs     []dirRecord  // the network's link directions, in its order
	pdcp     map[string]results.PDCPCounters
	pdcpDirs []string      // the PDCP directions in use, timeseries.csv's order
	pdcpHeld []pdcpSample  // what the receive proxies held over time
	sampled  time.Duration // how often the rate limiters were read
	captures []results.CaptureResult
	fidelity *fidelity.Fidelity // nil: the run never reached its flows
	warnings []string           // the network's, the measurements' and the logs'
}

// flowRecord is what one flow left: the run loop's view of it and what
// its endpoints logged. A log that could not be read leaves its error.
type flowRecord struct {
	state   runloop.FlowState
	delays  flowDelays
	recv    []results.FlowSample // bytes received over time
	recvErr error
	objects []results.ObjectRow  // objects flows
	rr      []results.RRRow      // rr flows
	cbr     []results.CBRPacket  // cbr flows
	kindErr error                // reading the rr or cbr log
	tcpInfo []results.TCPInfoRow // an MPTCP flow's subflows; nil: none
	infoErr error
}

// flowDelays are a flow's RTT and one-way delay series, times since the
// epoch.
type flowDelays struct {
	rtt, owd analysis.DelaySeries
}

// dirRecord is one link direction: where it is, the readings of its rate
// limiter, and what its trace gave it over time.
type dirRecord struct {
	name      string // link1.down
	link      int    // 0 for link1
	up        bool
	traced    bool // its rate came from a trace
	delayLine bool // a delay line of emu's carried it
	samples   []linkstats.Sample
	// capacity is its mean rate over [from, to) since the epoch, bit/s;
	// traceDelay the mean of a delay trace over it (false: none);
	// delayJumps the delay trace's jumps until to.
	capacity   func(from, to time.Duration) float64
	traceDelay func(from, to time.Duration) (ms float64, ok bool)
	delayJumps func(to time.Duration) tracefmt.Jumps
}
