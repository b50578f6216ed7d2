package sweep

import "github.com/dc-emu/emu/emu/results"

// The presets of the flow kinds (rr, cbr, objects, uploads, resumption,
// per-flow steering): studies outside the paper, each reproducing the set-up
// of a neighbouring study, which its Figure and Notes name.

// interactive flows of the latency presets: a latency probe (Flent's
// RRUL pings, here 100-byte HTTP transactions every 100 ms) and a VoIP-like
// stream (160 B every 20 ms).
const (
	rrProbe = "kind=rr,request=100,response=100,interval=100ms"
	voip    = "kind=cbr,packet=160,interval=20ms"
)

// flowSettings turns "k=v,k=v" into flows.i.k=v settings.
func flowSettings(i int, kv string) []string {
	var out []string
	start := 0
	for j := 0; j <= len(kv); j++ {
		if j == len(kv) || kv[j] == ',' {
			out = append(out, "flows."+itoa(i)+"."+kv[start:j])
			start = j + 1
		}
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// dcScheduler is the axis value that runs DC with one scheduler.
func dcScheduler(name string) Value { return Value{"dc-" + name, []string{"dc.scheduler=" + name}} }

// tcpCC and ngtcp2CC are the cca axis values of the congestion-control
// presets: kernel TCP or ngtcp2 with controller cc.
func tcpCC(cc string) Value { return Value{"tcp-" + cc, []string{"flow.proto=tcp", "flow.cc=" + cc}} }

func ngtcp2CC(cc string) Value {
	return Value{"ngtcp2-" + cc, []string{"flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2", "flow.cc=" + cc}}
}

// downloadOnLink1 are the settings the congestion-control presets share
// (one unlimited 60 s download with large QUIC buffers on link1, DC off
// and no trace until the preset names one), then more.
func downloadOnLink1(more ...string) []string {
	return concat([]string{"link.trace=none", "dc.enabled=false", "flow.path=link1", "flow.size=0", "flow.duration=60s", "flow.rcvbuf=large"}, more)
}

var workloadPresets = []Preset{
	{
		Name: "rrul", Title: "latency under load: bulk down, bulk up, a latency probe and VoIP at once, over DC and over one link, per scheduler",
		Figure: "Flent's RRUL on Dual Connectivity (not in the paper)", Scenario: "throughput",
		Settings: concat([]string{"link.trace=none", "dc.uplink=split", "flows.count=4", "flow.duration=30s",
			"flows.0.name=down", "flows.0.proto=tcp", "flows.0.cc=cubic",
			"flows.1.name=up", "flows.1.proto=tcp", "flows.1.cc=cubic", "flows.1.direction=up",
			"flows.2.name=rr", "flows.3.name=voip"},
			flowSettings(2, rrProbe), flowSettings(3, voip)),
		Axes: []results.Axis{Labeled("path",
			dcScheduler("batch"),
			dcScheduler("weighted"),
			dcScheduler("smallest-delay"),
			dcScheduler("adaptive"),
			dcScheduler("duplicate"),
			Value{"link1", []string{"dc.enabled=false"}},
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
		Name: "satellite", Title: "file transfers over a geostationary path: bottleneck × RTT × size × stack; transfer time and used bandwidth",
		Figure: "satellite study: its transfer-time grid with TCP, a split-TCP PEP, QUIC and 0-RTT (not in the paper)", Scenario: "throughput",
		Settings: []string{
			"link.trace=none", "dc.enabled=false", "flow.path=link1", "link1.jitter=0", "link1.queue=500ms", "flow.rcvbuf=large",
			"flow.kind=objects", "flow.objects=1MB", "flow.size=1MB", "tcp.buffer_max=64MB",
		},
		Axes: []results.Axis{
			Labeled("pair",
				Value{"1M/100k", []string{"link1.down.rate=1mbit", "link1.up.rate=100kbit"}},
				Value{"10M/2M", []string{"link1.down.rate=10mbit", "link1.up.rate=2mbit"}},
				Value{"50M/25M", []string{"link1.down.rate=50mbit", "link1.up.rate=25mbit"}},
				Value{"200M/100M", []string{"link1.down.rate=200mbit", "link1.up.rate=100mbit"}}),
			Labeled(axisRTT,
				Value{"100ms", []string{"link1.delay=50ms"}},
				Value{"200ms", []string{"link1.delay=100ms"}},
				Value{"300ms", []string{"link1.delay=150ms"}},
				Value{"400ms", []string{"link1.delay=200ms"}},
				Value{"500ms", []string{"link1.delay=250ms"}}),
			Labeled(axisSize,
				Value{"500kB", []string{"flow.objects=500kB", "flow.size=500kB"}},
				Value{"1MB", []string{"flow.objects=1MB", "flow.size=1MB"}},
				Value{"10MB", []string{"flow.objects=10MB", "flow.size=10MB"}},
				Value{"100MB", []string{"flow.objects=100MB", "flow.size=100MB"}}),
			Labeled(axisStack,
				Value{"tcp", []string{"flow.reuse=false", "flow.proto=tcp", "flow.cc=cubic"}},
				Value{"tcp-bdp", []string{"flow.reuse=false", "flow.proto=tcp", "flow.cc=cubic", "flow.resume=bdp"}},
				Value{"tcp-pep", []string{"flow.reuse=false", "flow.proto=tcp", "flow.cc=cubic", "pep.enabled=true", "pep.cc=cubic"}},
				Value{"quic-go", []string{"flow.reuse=false", "flow.resume=off"}},
				Value{"quic-go-0rtt", []string{"flow.reuse=false", "flow.resume=0rtt"}},
				Value{"ngtcp2-bbr", []string{"flow.kind=bulk", "flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2", "flow.cc=bbr"}}),
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
		Name: "steering", Title: "per-flow steering on DC: a bulk flow and a latency probe, each flow's scheduler varied; bulk goodput against the probe's p95 latency",
		Figure: "ATSSS scheduler-combination study (not in the paper)", Scenario: "throughput",
		Settings: concat([]string{"link.trace=none", "link.jitter=0", "link1.delay=10ms", "link2.delay=30ms", "link.queue=100ms",
			"flows.count=2", "flow.duration=30s",
			"flows.0.name=bulk", "flows.0.proto=tcp", "flows.0.cc=cubic", "flows.1.name=rr"},
			flowSettings(1, "kind=rr,request=100,response=100,interval=50ms")),
		Axes: []results.Axis{Labeled("steer",
			Value{"both-batch", []string{"dc.scheduler=batch"}},
			Value{"rr-smallest-delay", []string{"flows.1.scheduler=smallest-delay"}},
			Value{"rr-duplicate", []string{"flows.1.scheduler=duplicate"}},
			Value{"rr-link1", []string{"flows.1.scheduler=active-standby", "flows.1.active=link1"}},
			Value{"bulk-link2-rr-link1", []string{"flows.0.scheduler=active-standby", "flows.0.active=link2", "flows.1.scheduler=active-standby", "flows.1.active=link1"}},
			Value{"both-smallest-delay", []string{"dc.scheduler=smallest-delay"}},
		)},
		Repeat: 5,
		Notes: "Two flows share the DC path of 2 × 20 Mbit/s with one-way delays of 10 ms (link1) and 30 ms (link2), no jitter, 100 ms queues: " +
			"a TCP CUBIC bulk download and an rr probe (100-byte QUIC transactions every 50 ms), for 30 s. Each steer value gives the flows their schedulers " +
			"(flows.N.scheduler; a flow with one is its own PDCP entity, docs/design.md): both on batch 100, the probe on smallest-delay, duplicated, or pinned to the " +
			"fast link, the bulk flow pinned to the slow link with the probe on the fast one, or both on smallest-delay. " +
			"The tradeoff figure plots flow.bulk.goodput_mbps against flow.rr.latency_p95_ms, one point per combination.",
	},
	{
		Name: "cca-5g", Title: "congestion controls over 5G and mmWave traces on one link: goodput against p95 RTT and one-way delay",
		Figure: "5G congestion-control comparisons (not in the paper)", Scenario: "throughput",
		Settings: downloadOnLink1("link1.jitter=0"),
		Axes: []results.Axis{
			Labeled("trace",
				Value{"5g-static", []string{"link1.trace=raca5g-static-B"}},
				Value{"5g-driving", []string{"link1.trace=raca5g-driving-B"}},
				Value{"mmwave-driving", []string{"link1.trace=lumos5g-mmwave-driving-run1"}},
				Value{"mmwave-walking", []string{"link1.trace=5gophers-mmwave-walking"}}),
			Labeled("cca",
				tcpCC("cubic"),
				tcpCC("bbr"),
				tcpCC("reno"),
				ngtcp2CC("cubic"),
				ngtcp2CC("bbr")),
		},
		Grid: true, Repeat: 3,
		Notes: "One download of 60 s on link1 (DC off) whose downlink replays a shipped trace: Raca et al.'s 5G static and driving traces (121 and 40 Mbit/s mean) " +
			"and the Lumos5G and 5Gophers mmWave traces (306 and 333 Mbit/s mean, peaks near 1 Gbit/s), the uplink at 20 Mbit/s; emu's 1000-packet queue, " +
			"10 ms one way without jitter. The cca axis is kernel TCP CUBIC, BBR and Reno and ngtcp2 CUBIC and BBR (quic-go has NewReno only). " +
			"The comparisons this follows plot throughput against delay: read goodput against the flows' p95 RTT (TCP_INFO for TCP, qlog for ngtcp2) and " +
			"p95 one-way delay (TCP; ngtcp2's sparse bodies carry no stamps). mmWave rates need the CPU to keep up: check utilization, the emulation's fidelity verdict, " +
			"or scale them down with trace.rate_scale.",
	},
	{
		Name: "leo", Title: "congestion controls over a Starlink trace on one link, its delay replayed or held constant: goodput against p95 RTT and one-way delay",
		Figure: "LEO congestion-control comparisons, LeoCC (SIGCOMM 2025) (not in the paper)", Scenario: "throughput",
		Settings: downloadOnLink1("link1.trace=starlink", "link1.jitter=0", "link1.up.rate=10mbit"),
		Axes: []results.Axis{
			Labeled("delay",
				Value{"trace", []string{"link1.delay_trace=link"}},
				Value{"constant", []string{"link1.delay=11ms"}}),
			Labeled("cca",
				tcpCC("reno"),
				tcpCC("cubic"),
				tcpCC("bbr"),
				Value{"quic-go", []string{"flow.proto=quic"}},
				ngtcp2CC("cubic"),
				ngtcp2CC("bbr")),
		},
		Grid: true, Repeat: 3,
		Notes: "One download of 60 s on link1 (DC off) over the shipped Starlink trace (LeoReplayer's example, SIGCOMM 2025: 48.7 Mbit/s mean, one-way delay " +
			"p50 11 ms with jumps of +19 to +43 ms every 15 s as the constellation reconfigures), the uplink at 10 Mbit/s, no jitter, emu's 1000-packet queue. " +
			"The delay axis replays the trace's one-way delay on both directions (delay=trace) or holds it at its median, 11 ms (delay=constant), so the cost of the " +
			"reconfigurations is one comparison per congestion control: kernel TCP Reno, CUBIC and BBR, quic-go (NewReno) and ngtcp2 CUBIC and BBR. " +
			"Read goodput against p95 RTT and one-way delay in the tput-delay figures. LeoReplayer's own runs also lose 0.2 % on the uplink; add link1.up.loss=0.2% to match.",
	},
	{
		Name: "atsss-leo", Title: "satellite plus cellular access: a Starlink link and an LTE link, single path on each, DC per scheduler and MPTCP; goodput, rr latency and t-Reordering expiries",
		Figure: "ATSSS over satellite and cellular (not in the paper)", Scenario: "throughput",
		Settings: concat([]string{"link1.trace=starlink", "link1.jitter=0", "link1.up.rate=10mbit",
			"link2.trace=StaticA", "link2.delay=25ms", "link2.jitter=10%",
			"flows.count=2", "flow.duration=30s", "flow.size=0", "flow.rcvbuf=large",
			"flows.0.name=bulk", "flows.1.name=rr"},
			flowSettings(1, "kind=rr,request=100,response=100,interval=50ms")),
		Axes: []results.Axis{Labeled("path",
			Value{"link1", []string{"dc.enabled=false", "flow.path=link1"}},
			Value{"link2", []string{"dc.enabled=false", "flow.path=link2"}},
			dcScheduler("batch"),
			dcScheduler("weighted"),
			dcScheduler("smallest-delay"),
			dcScheduler("adaptive"),
			Value{"mptcp", []string{"dc.enabled=false", "flows.0.path=mptcp", "flows.0.proto=tcp", "flows.0.cc=cubic", "flows.1.path=link1"}},
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
