package network

import (
	"time"

	"github.com/dc-emu/emu/emu/dcproxy"
	"github.com/dc-emu/emu/emu/results"
)

// proxyTiming is one direction's verdict latency and queue counters, for
// summary.json and counters.json.
func proxyTiming(pp *proxyPair) results.ProxyTiming {
	lat, txq := pp.tx.Timing()
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) }
	h := &lat.Histogram
	return results.ProxyTiming{
		TxVerdictUs: map[string]float64{
			"n": float64(h.Count), "mean": us(h.Mean()), "p50": us(h.Quantile(0.5)),
			"p99": us(h.Quantile(0.99)), "p999": us(h.Quantile(0.999)), "max": us(h.Max),
		},
		TxQueue: queueCounters(txq),
		RxQueue: queueCounters(pp.rx.Queue()),
	}
}

func queueCounters(q dcproxy.QueueStats) *results.ProxyQueue {
	return &results.ProxyQueue{HeldMax: q.HeldMax, Dropped: q.Dropped}
}
