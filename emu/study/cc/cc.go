// Package cc is the study of congestion controls where links are fast,
// far or changing: over the shipped 5G and mmWave traces (cca-5g), over a
// Starlink trace with its delay replayed or held (leo, after LeoCC), and
// QUIC and TCP flows sharing a long fat network (lfn), with the QUIC
// receiver's ACK threshold as an axis. Its sweeps are read with the
// engine's figures: goodput against p95 RTT and one-way delay, per-flow
// goodput and JFI, the relative goodput of the ACK thresholds; an lfn
// sweep also gets the ACK table, with the CPU of the QUIC clients and of
// the emulator beside each point, and the verdict of the long-fat-network
// study's ACK finding (AckFinding).
package cc

import (
	"fmt"
	"slices"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// Study is the congestion-control study: cca-5g, leo and lfn, and the lfn
// ACK table.
func Study() sweep.Study { return study{presets()} }

// downloadOnLink1 are the settings the congestion-control presets share
// (one unlimited 60 s download with large QUIC buffers on link1, DC off
// and no trace until the preset names one), then more.
func downloadOnLink1(more ...string) []string {
	return slices.Concat([]string{"link.trace=none", "dc.enabled=false", "flow.path=link1", "flow.size=0", "flow.duration=60s", "flow.rcvbuf=large"}, more)
}

// mix is the settings of q QUIC flows and t TCP flows on the base path,
// named quic1…, tcp1…; TCP uses CUBIC (the kernel's default here may be
// BBR, which would make the mix a study of BBR against NewReno) and keeps
// the default ACK threshold whatever the ack axis gives the QUIC flows:
// kernel TCP takes none (its delayed ACKs are the kernel's).
func mix(q, t int) []string {
	out := []string{fmt.Sprintf("flows.count=%d", q+t)}
	for i := range q + t {
		if i < q {
			out = append(out, fmt.Sprintf("flows.%d.name=quic%d", i, i+1))
		} else {
			out = append(out, fmt.Sprintf("flows.%d.name=tcp%d", i, i-q+1), fmt.Sprintf("flows.%d.proto=tcp", i), fmt.Sprintf("flows.%d.cc=cubic", i),
				fmt.Sprintf("flows.%d.ack_thresh=2", i))
		}
	}
	return out
}

func presets() []sweep.Preset {
	return []sweep.Preset{
		{
			Name: "cca-5g", Title: "congestion controls over 5G and mmWave traces on one link: goodput against p95 RTT and one-way delay",
			Figure: "5G congestion-control comparisons (not in the paper)", Scenario: "throughput",
			Settings: downloadOnLink1("link1.jitter=0"),
			Axes: []results.Axis{
				sweep.Labeled("trace",
					sweep.Value{Label: "5g-static", Set: []string{"link1.trace=raca5g-static-B"}},
					sweep.Value{Label: "5g-driving", Set: []string{"link1.trace=raca5g-driving-B"}},
					sweep.Value{Label: "mmwave-driving", Set: []string{"link1.trace=lumos5g-mmwave-driving-run1"}},
					sweep.Value{Label: "mmwave-walking", Set: []string{"link1.trace=5gophers-mmwave-walking"}}),
				sweep.Labeled("cca",
					sweep.TCPWith("cubic"),
					sweep.TCPWith("bbr"),
					sweep.TCPWith("reno"),
					sweep.Ngtcp2With("cubic"),
					sweep.Ngtcp2With("bbr")),
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
				sweep.Labeled("delay",
					sweep.Value{Label: "trace", Set: []string{"link1.delay_trace=link"}},
					sweep.Value{Label: "constant", Set: []string{"link1.delay=11ms"}}),
				sweep.Labeled("cca",
					sweep.TCPWith("reno"),
					sweep.TCPWith("cubic"),
					sweep.TCPWith("bbr"),
					sweep.Value{Label: "quic-go", Set: []string{"flow.proto=quic"}},
					sweep.Ngtcp2With("cubic"),
					sweep.Ngtcp2With("bbr")),
			},
			Grid: true, Repeat: 3,
			Notes: "One download of 60 s on link1 (DC off) over the shipped Starlink trace (LeoReplayer's example, SIGCOMM 2025: 48.7 Mbit/s mean, one-way delay " +
				"p50 11 ms with jumps of +19 to +43 ms every 15 s as the constellation reconfigures), the uplink at 10 Mbit/s, no jitter, emu's 1000-packet queue. " +
				"The delay axis replays the trace's one-way delay on both directions (delay=trace) or holds it at its median, 11 ms (delay=constant), so the cost of the " +
				"reconfigurations is one comparison per congestion control: kernel TCP Reno, CUBIC and BBR, quic-go (NewReno) and ngtcp2 CUBIC and BBR. " +
				"Read goodput against p95 RTT and one-way delay in the tput-delay figures. LeoReplayer's own runs also lose 0.2 % on the uplink; add link1.up.loss=0.2% to match.",
		},
		{
			Name: "lfn", Title: "long fat network: competing QUIC and TCP flows × RTT, per-flow goodput and JFI",
			Figure: "long-fat-network study (not in the paper)", Scenario: "throughput",
			Settings: []string{
				"link.trace=none", "dc.enabled=false", "flow.path=link1", "link1.rate=1gbit", "link1.jitter=0",
				"flow.size=0", "flow.duration=20s", "flow.rcvbuf=large",
			},
			Axes: []results.Axis{
				sweep.Labeled("rtt",
					sweep.Value{Label: "1ms", Set: []string{"link1.delay=500us", "link1.down.queue=1ms"}},
					sweep.Value{Label: "10ms", Set: []string{"link1.delay=5ms", "link1.down.queue=10ms"}},
					sweep.Value{Label: "50ms", Set: []string{"link1.delay=25ms", "link1.down.queue=50ms"}},
					sweep.Value{Label: "100ms", Set: []string{"link1.delay=50ms", "link1.down.queue=100ms"}},
					sweep.Value{Label: "180ms", Set: []string{"link1.delay=90ms", "link1.down.queue=180ms"}}),
				sweep.Labeled("flows",
					sweep.Value{Label: "1q", Set: mix(1, 0)}, sweep.Value{Label: "2q", Set: mix(2, 0)}, sweep.Value{Label: "4q", Set: mix(4, 0)},
					sweep.Value{Label: "1t", Set: mix(0, 1)}, sweep.Value{Label: "2t", Set: mix(0, 2)}, sweep.Value{Label: "4t", Set: mix(0, 4)},
					sweep.Value{Label: "1q+1t", Set: mix(1, 1)}, sweep.Value{Label: "2q+2t", Set: mix(2, 2)}),
				ackAxis(),
			},
			Grid: true, Repeat: 5,
			Notes: "One path (link1, DC off) at 1 Gbit/s with a one-BDP queue (the rtt axis sets the one-way delay to RTT/2 and the queue to RTT at the link rate); " +
				"flows named quic1…, tcp1… share it for 20 s (ngtcp2 with its default congestion control, CUBIC, and kernel TCP CUBIC). " +
				"The ack axis is the QUIC receiver's ACK threshold (flow.ack_thresh): ack-eliciting packets before an immediate ACK, 2 (RFC 9000's and ngtcp2's default) " +
				"against 20, after the long-fat-network study that found 20 raised one QUIC stream from 39–42 to 62–68 Mbit/s; quic-go takes no threshold " +
				"(quic-go #2482), so the QUIC flows are ngtcp2's, and the TCP-only mixes, which it does not change, run once (ack=*). " +
				"The sweep's ACK table gives each point's gain over ack=2 with the QUIC clients' and the emulator's CPU, and the finding's verdict. " +
				"Whether a machine can emulate 1 Gbit/s depends on its cores: check the utilization column, and lower the rate with --set link1.rate=200mbit if single flows cannot fill the link.",
		},
	}
}
