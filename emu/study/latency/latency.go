// Package latency is the study of latency under load: Flent's RRUL test
// through emu's paths (bulk both ways, a latency probe and VoIP at once,
// over DC per scheduler and over one link) and per-flow steering (each
// flow of a bulk download and a probe given its own scheduler). Its
// sweeps are read with the engine's tradeoff figures: goodput against the
// probe's p95 latency.
package latency

import (
	"slices"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// Study is the latency study's presets, rrul and steering.
func Study() sweep.Study { return sweep.PresetsOnly(presets()) }

// interactive flows of the latency presets: a latency probe (Flent's
// RRUL pings, here 100-byte HTTP transactions every 100 ms) and a VoIP-like
// stream (160 B every 20 ms).
const (
	rrProbe = "kind=rr,request=100,response=100,interval=100ms"
	voip    = "kind=cbr,packet=160,interval=20ms"
)

func presets() []sweep.Preset {
	return []sweep.Preset{
		{
			Name: "rrul", Title: "latency under load: bulk down, bulk up, a latency probe and VoIP at once, over DC and over one link, per scheduler",
			Figure: "Flent's RRUL on Dual Connectivity (not in the paper)", Scenario: "throughput",
			Settings: slices.Concat([]string{"link.trace=none", "dc.uplink=split", "flows.count=4", "flow.duration=30s",
				"flows.0.name=down", "flows.0.proto=tcp", "flows.0.cc=cubic",
				"flows.1.name=up", "flows.1.proto=tcp", "flows.1.cc=cubic", "flows.1.direction=up",
				"flows.2.name=rr", "flows.3.name=voip"},
				sweep.FlowSettings(2, rrProbe), sweep.FlowSettings(3, voip)),
			Axes: []results.Axis{sweep.Labeled("path",
				sweep.DCScheduler("batch"),
				sweep.DCScheduler("weighted"),
				sweep.DCScheduler("smallest-delay"),
				sweep.DCScheduler("adaptive"),
				sweep.DCScheduler("duplicate"),
				sweep.Value{Label: "link1", Set: []string{"dc.enabled=false"}},
			)},
			Repeat: 5,
			Notes: "Flent's RRUL test (bulk TCP both ways plus latency probes) run through emu's paths: a TCP CUBIC download and a TCP CUBIC upload " +
				"(the upload split over both links by the uplink PDCP proxy, dc.uplink=split), an rr flow of 100-byte transactions every 100 ms over QUIC (Flent pings by ICMP and UDP; " +
				"here the probe crosses the same transport stack as traffic does) and a 160 B / 20 ms cbr flow, all for 30 s over 2 × 20 Mbit/s, 10 ms ± 10 % one way, " +
				"emu's default 1000-packet queues (0.6 s at 20 Mbit/s: the bufferbloat RRUL exposes). The path axis runs the load over DC with each scheduler " +
				"(batch 100, weighted 1:1, smallest-delay, adaptive, duplicate) and over one link (link1: dc.enabled=false). " +
				"Read flow.rr.latency_p95_ms and flow.voip.owd_p95_ms against flow.down/up.goodput_mbps (the tradeoff figures).",
		},
		{
			Name: "steering", Title: "per-flow steering on DC: a bulk flow and a latency probe, each flow's scheduler varied; bulk goodput against the probe's p95 latency",
			Figure: "ATSSS scheduler-combination study (not in the paper)", Scenario: "throughput",
			Settings: slices.Concat([]string{"link.trace=none", "link.jitter=0", "link1.delay=10ms", "link2.delay=30ms", "link.queue=100ms",
				"flows.count=2", "flow.duration=30s",
				"flows.0.name=bulk", "flows.0.proto=tcp", "flows.0.cc=cubic", "flows.1.name=rr"},
				sweep.FlowSettings(1, "kind=rr,request=100,response=100,interval=50ms")),
			Axes: []results.Axis{sweep.Labeled("steer",
				sweep.Value{Label: "both-batch", Set: []string{"dc.scheduler=batch"}},
				sweep.Value{Label: "rr-smallest-delay", Set: []string{"flows.1.scheduler=smallest-delay"}},
				sweep.Value{Label: "rr-duplicate", Set: []string{"flows.1.scheduler=duplicate"}},
				sweep.Value{Label: "rr-link1", Set: []string{"flows.1.scheduler=active-standby", "flows.1.active=link1"}},
				sweep.Value{Label: "bulk-link2-rr-link1", Set: []string{"flows.0.scheduler=active-standby", "flows.0.active=link2", "flows.1.scheduler=active-standby", "flows.1.active=link1"}},
				sweep.Value{Label: "both-smallest-delay", Set: []string{"dc.scheduler=smallest-delay"}},
			)},
			Repeat: 5,
			Notes: "Two flows share the DC path of 2 × 20 Mbit/s with one-way delays of 10 ms (link1) and 30 ms (link2), no jitter, 100 ms queues: " +
				"a TCP CUBIC bulk download and an rr probe (100-byte QUIC transactions every 50 ms), for 30 s. Each steer value gives the flows their schedulers " +
				"(flows.N.scheduler; a flow with one is its own PDCP entity, docs/design.md): both on batch 100, the probe on smallest-delay, duplicated, or pinned to the " +
				"fast link, the bulk flow pinned to the slow link with the probe on the fast one, or both on smallest-delay. " +
				"The tradeoff figure plots flow.bulk.goodput_mbps against flow.rr.latency_p95_ms, one point per combination.",
		},
	}
}
