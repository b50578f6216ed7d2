package emu

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/emu/linkstats"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runloop"
	"github.com/dc-emu/emu/internal/stats"
	"github.com/dc-emu/emu/topo"
)

// A run's summary.json and timeseries.csv are pure functions of what the
// run recorded: the runner gathers a record (record.go) once its flows
// have ended (record_linux.go reads the endpoints' logs and the network's
// readings), and summarize and seriesTable (timeseries.go) turn it into
// the files' contents, which their tests check without root or a network.

// summarize is the run's summary: its outcome, what each flow reported
// and logged, the link readings and the fidelity verdict; and each link
// direction's queueing delay, which timeseries.csv shows per bin.
func summarize(rec *record) (*results.Summary, []linkstats.QueueDelay) {
	s := &results.Summary{
		Scenario: rec.cfg.Scenario, Status: results.StatusOK, Seed: rec.cfg.Seed,
		Started: rec.started.UTC(), DurationS: results.Round3(rec.took.Seconds()),
		Config: config.Values(&rec.cfg), Versions: rec.versions,
	}
	s.Run = rec.name
	switch rec.outcome {
	case runloop.Interrupted:
		s.Status, s.Error = results.StatusInterrupted, rec.err.Error()
	case runloop.Failed:
		s.Status, s.Error = results.StatusFailed, rec.err.Error()
	}
	var warnings []string
	var fair []float64
	for i, f := range rec.cfg.Flows {
		fr, warn := flowResult(rec, i)
		warnings = append(warnings, warn...)
		if f.Kind == config.KindBulk { // fairness is a share of what bulk flows could take
			fair = append(fair, fr.GoodputMbps)
		}
		s.Flows = append(s.Flows, fr)
	}
	s.Captures = rec.captures
	s.JFI = results.Round3(stats.JFI(fair))
	if math.IsNaN(s.JFI) {
		s.JFI = 0
	}
	var linkWarnings []string
	var queue []linkstats.QueueDelay
	s.Links, queue, linkWarnings = linkResults(rec.dirs, rec.cfg, rec.sampled)
	s.PDCP = rec.pdcp
	s.Fidelity = rec.fidelity
	s.Warnings = slices.Concat(rec.warnings, linkWarnings, warnings)
	return s, queue
}

// flowResult is flow i's entry of summary.json, and the warnings its logs
// give.
func flowResult(rec *record, i int) (results.FlowResult, []string) {
	f, fl := rec.cfg.Flows[i], &rec.flows[i]
	fr := results.FlowResult{Name: f.Name, Path: f.Path, Proto: f.Proto, ServerImpl: f.ServerImpl,
		ClientImpl: f.ClientImpl, CC: flowCC(f), RcvBuf: f.RcvBuf, StartS: f.Start.Seconds()}
	if f.Proto == "quic" && f.ClientImpl == string(endpoint.ImplNgtcp2) {
		fr.AckThresh = f.AckThresh // the receiver's; others have none to record
	}
	st := fl.state
	fr.Bytes = st.Bytes
	if st.ServerCC != "" {
		fr.CC = st.ServerCC
	}
	var done *endpoint.Event
	if d := st.Done; d != nil {
		fr.Bytes, fr.Complete = d.Bytes, d.Complete
		if ev, ok := d.Result.(endpoint.Event); ok {
			fr.Seconds, fr.GoodputMbps, fr.RcvBufBytes = ev.Seconds, ev.GoodputMbps, ev.RcvBufBytes
			done = &ev
		}
	}
	fr.RTTMs, fr.OWDMs = fl.delays.rtt.StatsPtr(), fl.delays.owd.StatsPtr()
	if fr.OWDMs == nil && done != nil && done.OWD != nil && done.OWD.N > 0 {
		fr.OWDMs = done.OWD // the client's done line, when its log has none
	}
	summarizeWork(&fr, f, done, fl.objects, func(from, to time.Duration) float64 {
		return bottleneck(rec.cfg, rec.dirs, f, from, to)
	})
	fr.Error = st.Failure
	fr.Seconds, fr.GoodputMbps = results.Round3(fr.Seconds), results.Round3(fr.GoodputMbps)
	return fr, addSubflows(&fr, f, fl, len(rec.cfg.Links))
}

// flowCC is the congestion control of a flow's sender (the server) as
// configured; the Go servers report what the kernel actually uses, which
// replaces it. An empty TCP cc means the kernel's default.
func flowCC(f config.Flow) string {
	switch {
	case f.CC != "":
		return f.CC
	case f.Proto == "tcp":
		return "kernel default"
	case f.ServerImpl == "ngtcp2":
		return "cubic"
	}
	return "newreno"
}

// summarizeWork fills a flow's kind and figures from its client's done
// event and, for an objects flow, its per-object log, each object's
// goodput set against bottleneck (bit/s over an interval).
func summarizeWork(fr *results.FlowResult, f config.Flow, ev *endpoint.Event, objects []results.ObjectRow, bottleneck func(from, to time.Duration) float64) {
	if ev != nil && ev.Work != nil {
		fr.FlowWorkload = *ev.Work
	}
	fr.Kind, fr.Direction = f.Kind, f.Direction
	if f.Proto == config.ProtoUDP {
		fr.CC = "none" // plain UDP datagrams at the flow's own pace
	}
	if ev != nil && fr.OWDMs == nil {
		fr.OWDMs = ev.OWD
	}
	if f.Kind != config.KindObjects || objects == nil {
		return
	}
	fr.Objects, _, _ = results.ObjectResults(objects, func(from, to time.Duration) float64 {
		return bottleneck(from, to) / 1e6
	})
	var hs []float64
	for _, o := range fr.Objects {
		if o.HandshakeMs != nil {
			hs = append(hs, *o.HandshakeMs)
		}
	}
	if st, ok := results.SummarizeDelays(hs); ok {
		fr.HandshakeMs = &st
	}
}

// bottleneck is the capacity (bit/s) of the links that carry flow f's
// data, averaged over [from, to) since the epoch: the downlinks (uplinks
// for an upload) of its path, both for a DC flow with DC on (the uplink
// only with dc.uplink=split).
func bottleneck(cfg config.Config, dirs []dirRecord, f config.Flow, from, to time.Duration) float64 {
	up := f.Direction == config.DirUp
	uses := func(link int) bool {
		name := fmt.Sprintf("link%d", link+1)
		switch {
		case f.Path == config.PathMPTCP:
			return true // a subflow per link
		case f.Path != config.PathDC:
			return f.Path == name
		case !cfg.DC.Enabled:
			return link == 0
		case up && cfg.DC.Uplink != "split":
			return cfg.DC.Uplink == name
		}
		return true
	}
	c := 0.0
	for _, d := range dirs {
		if d.up == up && uses(d.link) {
			c += d.capacity(from, to)
		}
	}
	return c
}

// mptcpLink names the link a subflow from the MPTCP client's address a
// takes: the client has one address per link, in link order.
func mptcpLink(a netip.Addr) string {
	if i := slices.Index(topo.ClientAddrs(topo.PathMPTCP), a); i >= 0 {
		return fmt.Sprintf("link%d", i+1)
	}
	return ""
}

// addSubflows puts an MPTCP flow's subflows into its result; a problem
// with the log, or a link without a subflow, is a warning it returns.
func addSubflows(fr *results.FlowResult, f config.Flow, fl *flowRecord, links int) []string {
	if fl.infoErr != nil {
		return []string{fmt.Sprintf("flow %s: no per-subflow results: %v", f.Name, fl.infoErr)}
	}
	if fl.tcpInfo == nil {
		return nil
	}
	sfs, tot := results.Subflows(fl.tcpInfo, mptcpLink)
	fr.Subflows, fr.SubflowTotals = sfs, &tot
	used := map[string]bool{}
	for _, sf := range sfs {
		used[sf.Link] = true
	}
	var warn []string
	for i := range links {
		if l := fmt.Sprintf("link%d", i+1); !used[l] {
			warn = append(warn, fmt.Sprintf("flow %s: MPTCP opened no subflow over %s", f.Name, l))
		}
	}
	return warn
}

// linkResults is summary.json's links[], one per direction with readings:
// capacity, throughput and utilization from the epoch to the last reading,
// queue drops, and the queueing delay measured from the readings
// (linkstats.QueueDelays, from readings every sampled) beside the derived
// backlog ÷ rate. It returns each direction's queueing delay too, for
// timeseries.csv, and a warning for each that the readings could not
// give.
func linkResults(dirs []dirRecord, cfg config.Config, sampled time.Duration) ([]results.LinkResult, []linkstats.QueueDelay, []string) {
	queue := make([]linkstats.QueueDelay, len(dirs))
	var out []results.LinkResult
	var warn []string
	for i, d := range dirs {
		ser := d.samples
		if len(ser) == 0 {
			continue
		}
		last := ser[len(ser)-1]
		capacity := d.capacity(0, last.T)
		lr := results.LinkResult{Name: fmt.Sprintf("link%d", d.link+1), Dir: dirName(d.up), RateSource: "constant",
			CapacityMbps: results.Round3(capacity / 1e6), Drops: last.Drops}
		if last.T > 0 {
			thr := last.IPSent() * 8 / last.T.Seconds()
			lr.ThroughputMbps = results.Round3(thr / 1e6)
			if capacity > 0 {
				lr.Utilization = results.Round3(thr / capacity)
			}
		}
		if d.traced {
			lr.RateSource, lr.Trace = "trace", cfg.Links[d.link].Trace
		}
		j := d.delayJumps(last.T)
		for _, at := range j.At {
			lr.DelayJumpsS = append(lr.DelayJumpsS, results.Round3(at.Seconds()))
		}
		lr.DelayJumpPeriodS = results.Round3(j.Period.Seconds())
		q, err := linkstats.QueueDelays(ser, results.BinWidth)
		if err != nil {
			warn = append(warn, fmt.Sprintf("%s: queueing delay: %v", d.name, err))
		} else {
			queue[i] = q
			n := len(linkstats.Usable(ser))
			lr.QueueDelayMs, lr.QueueDelayDerivedMs = delayStats(q.Measured, n), delayStats(q.Derived, n)
			if lr.QueueDelayMs != nil {
				lr.QueueDelayMethod = fmt.Sprintf("rate limiter counters, sampled every %v", sampled)
			}
		}
		out = append(out, lr)
	}
	return out, queue, warn
}

func dirName(up bool) string {
	if up {
		return "up"
	}
	return "down"
}
