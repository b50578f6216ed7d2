// Package satellite is the study of transfers over satellite paths: the
// satellite report's grid of file transfers over a geostationary path
// (bottleneck × RTT × size × stack, TCP with and without resumed path
// state and a split-TCP PEP, QUIC with and without 0-RTT) and satellite
// plus cellular access (a Starlink link beside an LTE link, per scheduler
// and over MPTCP).
//
// Besides the engine's figures, a sweep with its axes gets two of the
// study's own: after the summary, the transfer time each variant stack
// saves against its base beside the report's figure (savings.go), and
// the used-bandwidth maps, goodput over the bottleneck per size × RTT,
// a panel per stack (usedbandwidth.go).
package satellite

import (
	"io"
	"slices"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// Study is the satellite study: its presets (satellite, atsss-leo), the
// savings table and the used-bandwidth maps.
func Study() sweep.Study { return study{} }

type study struct{}

func (study) Presets() []sweep.Preset                   { return presets() }
func (study) Tables(w io.Writer, t *results.SweepTable) { writeSavings(w, t) }
func (study) Figures(t *results.SweepTable) ([]sweep.Figure, error) {
	return usedBandwidthFigures(t)
}

func presets() []sweep.Preset {
	return []sweep.Preset{
		{
			Name: "satellite", Title: "file transfers over a geostationary path: bottleneck × RTT × size × stack; transfer time and used bandwidth",
			Figure: "satellite study: its transfer-time grid with TCP, a split-TCP PEP, QUIC and 0-RTT (not in the paper)", Scenario: "throughput",
			Settings: []string{
				"link.trace=none", "dc.enabled=false", "flow.path=link1", "link1.jitter=0", "link1.queue=500ms", "flow.rcvbuf=large",
				"flow.kind=objects", "flow.objects=1MB", "flow.size=1MB", "tcp.buffer_max=64MB",
			},
			Axes: []results.Axis{
				sweep.Labeled("pair",
					sweep.Value{Label: "1M/100k", Set: []string{"link1.down.rate=1mbit", "link1.up.rate=100kbit"}},
					sweep.Value{Label: "10M/2M", Set: []string{"link1.down.rate=10mbit", "link1.up.rate=2mbit"}},
					sweep.Value{Label: "50M/25M", Set: []string{"link1.down.rate=50mbit", "link1.up.rate=25mbit"}},
					sweep.Value{Label: "200M/100M", Set: []string{"link1.down.rate=200mbit", "link1.up.rate=100mbit"}}),
				sweep.Labeled(axisRTT,
					sweep.Value{Label: "100ms", Set: []string{"link1.delay=50ms"}},
					sweep.Value{Label: "200ms", Set: []string{"link1.delay=100ms"}},
					sweep.Value{Label: "300ms", Set: []string{"link1.delay=150ms"}},
					sweep.Value{Label: "400ms", Set: []string{"link1.delay=200ms"}},
					sweep.Value{Label: "500ms", Set: []string{"link1.delay=250ms"}}),
				sweep.Labeled(axisSize,
					sweep.Value{Label: "500kB", Set: []string{"flow.objects=500kB", "flow.size=500kB"}},
					sweep.Value{Label: "1MB", Set: []string{"flow.objects=1MB", "flow.size=1MB"}},
					sweep.Value{Label: "10MB", Set: []string{"flow.objects=10MB", "flow.size=10MB"}},
					sweep.Value{Label: "100MB", Set: []string{"flow.objects=100MB", "flow.size=100MB"}}),
				sweep.Labeled(axisStack,
					sweep.Value{Label: "tcp", Set: []string{"flow.reuse=false", "flow.proto=tcp", "flow.cc=cubic"}},
					sweep.Value{Label: "tcp-bdp", Set: []string{"flow.reuse=false", "flow.proto=tcp", "flow.cc=cubic", "flow.resume=bdp"}},
					sweep.Value{Label: "tcp-pep", Set: []string{"flow.reuse=false", "flow.proto=tcp", "flow.cc=cubic", "pep.enabled=true", "pep.cc=cubic"}},
					sweep.Value{Label: "quic-go", Set: []string{"flow.reuse=false", "flow.resume=off"}},
					sweep.Value{Label: "quic-go-0rtt", Set: []string{"flow.reuse=false", "flow.resume=0rtt"}},
					sweep.Value{Label: "ngtcp2-bbr", Set: []string{"flow.kind=bulk", "flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2", "flow.cc=bbr"}}),
			},
			Grid: true, Repeat: 3,
			Notes: "The satellite report's grid on one path (link1, DC off): its four forward/return bottleneck pairs, RTTs of 100 to 500 ms (each one-way delay half), " +
				"object sizes of 500 kB to 100 MB, no jitter, a 500 ms queue (time-based, so it holds the same time at every rate), large QUIC buffers, " +
				"and TCP buffers that may grow to 64 MB (tcp.buffer_max: the kernel's 4 MiB send maximum holds TCP under a 500 ms path's BDP from 50 Mbit/s up). " +
				"Each run moves one object on a new connection: the objects workload (emu's endpoints) for TCP, TCP starting from the path state a first connection left " +
				"(flow.resume=bdp, the report's BDP_FRAME idea in what Linux allows), TCP through the split-TCP PEP in the gateway " +
				"(pep.*, docs/satellite.md), quic-go and quic-go resuming in 0-RTT (a first connection obtains the ticket and token; docs/zero-rtt.md); " +
				"ngtcp2 with BBR (the closest to the report's picoquic BBR) as a download of the object's size, since ngtcp2's example client fetches one URL per process. " +
				results.MetricTransferTime + " is the transfer's completion time from the dial to the last byte and " + results.MetricTransferUtilization +
				" its goodput over the forward rate (the report's used bandwidth), drawn per size × RTT and stack in the used-bandwidth maps. " +
				"The whole grid is long (100 MB at 1 Mbit/s is over 800 s a run): run a slice with --only (--only pair=50M/25M --only size=1MB,10MB) or split it with --shard i/n over machines or sessions.",
		},
		{
			Name: "atsss-leo", Title: "satellite plus cellular access: a Starlink link and an LTE link, single path on each, DC per scheduler and MPTCP; goodput, rr latency and t-Reordering expiries",
			Figure: "ATSSS over satellite and cellular (not in the paper)", Scenario: "throughput",
			Settings: slices.Concat([]string{"link1.trace=starlink", "link1.jitter=0", "link1.up.rate=10mbit",
				"link2.trace=StaticA", "link2.delay=25ms", "link2.jitter=10%",
				"flows.count=2", "flow.duration=30s", "flow.size=0", "flow.rcvbuf=large",
				"flows.0.name=bulk", "flows.1.name=rr"},
				sweep.FlowSettings(1, "kind=rr,request=100,response=100,interval=50ms")),
			Axes: []results.Axis{sweep.Labeled("path",
				sweep.Value{Label: "link1", Set: []string{"dc.enabled=false", "flow.path=link1"}},
				sweep.Value{Label: "link2", Set: []string{"dc.enabled=false", "flow.path=link2"}},
				sweep.DCScheduler("batch"),
				sweep.DCScheduler("weighted"),
				sweep.DCScheduler("smallest-delay"),
				sweep.DCScheduler("adaptive"),
				sweep.Value{Label: "mptcp", Set: []string{"dc.enabled=false", "flows.0.path=mptcp", "flows.0.proto=tcp", "flows.0.cc=cubic", "flows.1.path=link1"}},
			)},
			Repeat: 3,
			Notes: "Satellite plus cellular access (3GPP's ATSSS, and Dual Connectivity across them): link1 replays the shipped Starlink trace's rate and one-way delay " +
				"(48.7 Mbit/s, 11 ms with jumps every 15 s), link2 the paper's LTE trace (StaticA, 4.5 Mbit/s) with 25 ms ± 10 % one way. Two flows for 30 s: a bulk " +
				"download and an rr probe of 100-byte transactions every 50 ms (QUIC). The path axis runs them on each link alone, over DC with the batch " +
				"(100 per link, 1:1), weighted, smallest-delay and adaptive schedulers, and the bulk flow over MPTCP (TCP CUBIC, the default path manager) with the probe " +
				"on link1 (emu's MPTCP flows are bulk downloads). Read flow.bulk.goodput_mbps against " +
				"flow.rr.latency_p95_ms (the tradeoff figure) and the PDCP receivers' t-Reordering expiries per second: a split that ignores the 10:1 rate ratio and the " +
				"delay jumps fills the reordering window.",
		},
	}
}
