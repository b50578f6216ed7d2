package results

import "strings"

// Metric names: one value per run, the columns of runs.csv and (as their
// mean, sd and confidence interval per point) of sweep.csv. This file owns
// them; emu/sweep computes those a run's summary.json and timeseries.csv
// give, analysis adds those only its qlog reading gives (emu analyze
// SWEEP), and emu/findings judges the paper's findings on them.
const (
	// MetricGoodput is the sum of the flows' goodput (Mbit/s).
	MetricGoodput = "total.goodput_mbps"
	// MetricJFI is Jain's fairness index over the flows' goodput, as the
	// run computed it (1 for a single flow).
	MetricJFI = "jfi"
	// MetricJFIActive is Jain's index over the flows' mean goodput in the
	// bins where all of them are active (emu analyze).
	MetricJFIActive = "jfi_active"
	// MetricUtilization is the total goodput divided by the capacity of
	// the bottleneck: the downlinks the flows use (a DC or MPTCP flow uses
	// both links, a DC flow link1 alone with dc.enabled=false) and the
	// uplinks their uploads use, at their configured or trace-replayed mean
	// rate. Goodput, not IP throughput: it says how much of the path
	// reached the application.
	MetricUtilization = "utilization"

	// MetricLinksDown is the combined downlink throughput (Mbit/s): the
	// sum of summary.json's links[dir=down].throughput_mbps (IP bytes that
	// left the rate limiters, before the delay lines' loss).
	MetricLinksDown = "link.down.throughput_mbps"
	// MetricUnderused is the fraction of the run's 100 ms bins, from the
	// first to the last with goodput, in which a downlink the flows use
	// carried less than half its capacity.
	MetricUnderused = "link.down.underused_frac"
	// MetricJFI1s and MetricJFI10s are the mean, over the consecutive
	// whole windows of 1 s and 10 s while every flow is active (as emu
	// analyze's jfi_active), of Jain's index of the flows' goodput within
	// the window. Runs with one flow have none.
	MetricJFI1s  = "jfi.window_1s"
	MetricJFI10s = "jfi.window_10s"
	// MetricRelativeGoodput is a run's total goodput divided by the mean
	// total goodput of its point's baseline point (Point.Baseline): the
	// point with the baseline axis at its baseline value and every other
	// axis the same, e.g. multipath ÷ the best single path (emu/sweep).
	// Plans without a baseline axis do not have it.
	MetricRelativeGoodput = "relative_goodput"
	// MetricTransferTime and MetricTransferUtilization describe a run of
	// one flow that moves a known amount (the satellite study's file
	// transfers): the mean completion time in seconds of its complete
	// objects, each from its connection's dial to its last byte, or of a
	// sized bulk download from its start to its last byte (handshake
	// included either way); and their goodput over the bottleneck's
	// capacity (the study's "used bandwidth"). Runs of several flows, or of
	// an unbounded download, do not have them.
	MetricTransferTime        = "transfer.fct_s"
	MetricTransferUtilization = "transfer.utilization"
	// MetricEmulatorCPU is the CPU of the emulator's own packet threads
	// (delay lines, PDCP proxies) over the run, summed, in cores: the
	// thread.cpu figures of summary.json's fidelity checks. Beside an
	// endpoint's CPU (QClientCPU) it tells a result the endpoints bound
	// from one the network did. Runs without a fidelity verdict lack it.
	MetricEmulatorCPU = "cpu.emulator"
)

// Per-flow quantities: FlowMetric(name, q) is "flow.<name>.<q>".
const (
	QGoodput          = "goodput_mbps"      // the flow's goodput (Mbit/s)
	QReorderedPackets = "reordered_packets" // qlog: packets received out of order
	QReorderedRatio   = "reordered_ratio"   // qlog: their share of the packets
	QPacketsLost      = "packets_lost"      // qlog: packets the sender declared lost
	QMeanSRTT         = "mean_srtt_ms"      // qlog: the sender's mean smoothed RTT
	QP95SRTT          = "p95_srtt_ms"       // qlog: its 95th percentile
	// QAcksPerDataPacket is the receiver's ACK frames per packet of
	// stream data it received (qlog), for flows whose receiver took an
	// ACK threshold (flow.ack_thresh).
	QAcksPerDataPacket = "acks_per_data_packet"
	// QClientCPU and QServerCPU are the flow's client and server
	// processes' CPU over the flow, in cores (summary.json's fidelity
	// endpoint.cpu checks).
	QClientCPU = "client_cpu"
	QServerCPU = "server_cpu"
)

// FlowMetric is one flow's metric of quantity q.
func FlowMetric(flow, q string) string { return "flow." + flow + "." + q }

// FlowGoodput is the goodput metric of one flow (Mbit/s); the fairness
// flows are dc, link1 and link2.
func FlowGoodput(flow string) string { return FlowMetric(flow, QGoodput) }

// LinkUtilizationP99 is the 99th percentile, over the run's 100 ms bins
// from the first to the last with goodput, of a downlink's throughput
// over its capacity ("link2.down.utilization_p99"; bins without capacity,
// an outage, are left out): whether a link reaches its capacity even in
// bursts.
func LinkUtilizationP99(link string) string { return link + ".down.utilization_p99" }

// LinkDirUtilization is a link direction's utilization over the run
// ("link1.down.utilization"); DirUtilization all links' of a direction
// together ("link.down.utilization").
func LinkDirUtilization(link, dir string) string { return link + "." + dir + ".utilization" }

// DirQueueDrops is the drops at the rate limiters' queue limits of all
// links of one direction over the run, GSO packets once
// ("link.down.queue_drops").
func DirQueueDrops(dir string) string { return "link." + dir + ".queue_drops" }

// DirUtilization is the utilization of all links of one direction.
func DirUtilization(dir string) string { return LinkDirUtilization("link", dir) }

// PDCPRepairs is the number of PDUs one direction's PDCP receiver put
// back in order (emu analyze).
func PDCPRepairs(dir string) string { return "pdcp." + dir + ".repairs" }

// GoodputFlow is the flow whose goodput metric m is (FlowGoodput), or ok
// false when m is another metric.
func GoodputFlow(m string) (flow string, ok bool) {
	rest, ok := strings.CutPrefix(m, "flow.")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, "."+QGoodput)
}
