package emu

import (
	"fmt"

	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/linkstats"
	"github.com/dc-emu/emu/emu/results"
)

// queueDelayMethod says in summary.json how queue_delay_ms was obtained.
var queueDelayMethod = fmt.Sprintf("rate limiter counters, sampled every %v", link.SampleInterval)

// linkResults is summary.json's links[], one per direction with readings:
// capacity, throughput and utilization from the epoch to the last reading,
// queue drops, and the queueing delay measured from the readings
// (linkstats.QueueDelays) beside the derived backlog ÷ rate. It keeps each
// direction's queueing delay for timeseries.csv.
func (r *runner) linkResults() []results.LinkResult {
	series := r.meas.series
	r.meas.queue = make([]linkstats.QueueDelay, len(series))
	var out []results.LinkResult
	for i, d := range r.em.Dirs() {
		if i >= len(series) || len(series[i]) == 0 {
			continue
		}
		ser := series[i]
		last := ser[len(ser)-1]
		capacity := d.Capacity(0, last.T)
		lr := results.LinkResult{Name: fmt.Sprintf("link%d", d.Link+1), Dir: dirName(d.Up), RateSource: "constant",
			CapacityMbps: results.Round3(capacity / 1e6), Drops: last.Drops}
		if last.T > 0 {
			thr := last.IPSent() * 8 / last.T.Seconds()
			lr.ThroughputMbps = results.Round3(thr / 1e6)
			if capacity > 0 {
				lr.Utilization = results.Round3(thr / capacity)
			}
		}
		if d.Player != nil {
			lr.RateSource, lr.Trace = "trace", r.cfg.Links[d.Link].Trace
		}
		j := d.DelayJumps(last.T)
		for _, at := range j.At {
			lr.DelayJumpsS = append(lr.DelayJumpsS, results.Round3(at.Seconds()))
		}
		lr.DelayJumpPeriodS = results.Round3(j.Period.Seconds())
		q, err := linkstats.QueueDelays(ser, results.BinWidth)
		if err != nil {
			r.meas.warnings = append(r.meas.warnings, fmt.Sprintf("%s: queueing delay: %v", d.Name, err))
		} else {
			r.meas.queue[i] = q
			n := len(linkstats.Usable(ser))
			lr.QueueDelayMs, lr.QueueDelayDerivedMs = delayStats(q.Measured, n), delayStats(q.Derived, n)
			if lr.QueueDelayMs != nil {
				lr.QueueDelayMethod = queueDelayMethod
			}
		}
		out = append(out, lr)
	}
	return out
}

func dirName(up bool) string {
	if up {
		return "up"
	}
	return "down"
}
