package results

import "strings"

// The columns of timeseries.csv (docs/results.md): this file owns their
// names. The run writes them, and Timeseries, the sweep's per-run metrics
// and the analysis' figures read them through these constructors, so a
// name is spelled once.

// SeriesTime is the first column: the end of each bin, in seconds since
// the run's start.
const SeriesTime = "t_s"

// Per-flow quantities: FlowSeries(name, q) is "flow.<name>.<q>".
const (
	SeriesGoodput = "goodput_mbps" // application bytes received (Mbit/s)
	SeriesRTT     = "rtt_ms"       // the sender's RTT samples, mean per bin
	SeriesOWD     = "owd_ms"       // one-way delay of data, mean per bin
	SeriesLatency = "latency_ms"   // rr flows: request–response latency
)

// Per link-direction quantities: DirSeries("link1.down", q) is
// "link1.down.<q>".
const (
	SeriesCapacity   = "capacity_mbps"   // the rate the link was set to
	SeriesThroughput = "throughput_mbps" // IP bytes that left the rate limiter
	SeriesQueueBytes = "queue_bytes"     // the rate limiter's backlog
	SeriesQueueDelay = "queue_delay_ms"  // the queueing delay it implies
	SeriesLateMax    = "late_max_ms"     // the delay line's longest release lateness
	SeriesTraceDelay = "trace_delay_ms"  // a delay trace's delay in force
)

// FlowSeries is one flow's column of quantity q.
func FlowSeries(flow, q string) string { return "flow." + flow + "." + q }

// DirSeries is one link direction's column of quantity q; dir is the
// direction's name, "link1.down".
func DirSeries(dir, q string) string { return dir + "." + q }

// PDCPBufferSeries is the column of the PDUs one direction's PDCP receivers
// held ("pdcp.down.buffer_pkts").
func PDCPBufferSeries(dir string) string { return "pdcp." + dir + ".buffer_pkts" }

// SeriesFlow is the flow whose column of quantity q col is, or ok false.
func SeriesFlow(col, q string) (flow string, ok bool) {
	rest, ok := strings.CutPrefix(col, "flow.")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, "."+q)
}

// SeriesDir is the link direction ("link1.down") whose column of quantity
// q col is, or ok false.
func SeriesDir(col, q string) (dir string, ok bool) {
	dir, ok = strings.CutSuffix(col, "."+q)
	return dir, ok && strings.HasPrefix(dir, "link")
}

// PDCPCreditSeries is the column of one leg's flow-control credit in one
// direction, bytes the PDCP host may still send it ("pdcp.down.link1.credit_bytes";
// dc.fc=ddds only).
func PDCPCreditSeries(dir, link string) string { return "pdcp." + dir + "." + link + ".credit_bytes" }
