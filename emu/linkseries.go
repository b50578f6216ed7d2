package emu

import (
	"math"
	"sort"
	"time"

	"github.com/dc-emu/emu/emu/linkstats"
	"github.com/dc-emu/emu/emu/results"
)

// ipSentAt is a direction's cumulative IP-layer bytes sent by t,
// interpolated linearly between readings; before the first reading it is
// the first one's count and after the last the last one's.
func ipSentAt(series []linkstats.Sample, t time.Duration) float64 {
	if len(series) == 0 {
		return 0
	}
	i := sort.Search(len(series), func(i int) bool { return series[i].T > t })
	switch {
	case i == 0:
		return series[0].IPSent()
	case i == len(series):
		return series[i-1].IPSent()
	}
	a, b := series[i-1], series[i]
	f := float64(t-a.T) / float64(b.T-a.T)
	return a.IPSent() + f*(b.IPSent()-a.IPSent())
}

// backlogAt is a direction's queue in bytes at the last reading at or
// before t; 0 before the first.
func backlogAt(series []linkstats.Sample, t time.Duration) uint64 {
	i := sort.Search(len(series), func(i int) bool { return series[i].T > t })
	if i == 0 {
		return 0
	}
	return series[i-1].Backlog
}

// lastT is the time of the latest reading of any direction.
func lastT(series [][]linkstats.Sample) time.Duration {
	var end time.Duration
	for _, s := range series {
		if len(s) > 0 {
			end = max(end, s[len(s)-1].T)
		}
	}
	return end
}

// binQueueDelay is the measured mean queueing delay in ms of the bytes that
// left in bin k of a direction's series (linkstats bins of
// results.BinWidth); NaN when none left, so the cell stays empty.
func binQueueDelay(q linkstats.QueueDelay, k int) float64 {
	if k >= len(q.Bins) || q.Bins[k].Bytes == 0 {
		return math.NaN()
	}
	return results.Round3(ms(q.Bins[k].Mean))
}

// delayStats turns a distribution of queueing delays into summary.json's
// figures in ms; n is the readings it was computed from. Nil when no byte
// left the queue.
func delayStats(d linkstats.Dist, n int) *results.DelayStats {
	if d.Bytes == 0 {
		return nil
	}
	return &results.DelayStats{
		P50: results.Round3(ms(d.P50)), P95: results.Round3(ms(d.P95)), P99: results.Round3(ms(d.P99)),
		Max: results.Round3(ms(d.Max)), Mean: results.Round3(ms(d.Mean)), N: n,
	}
}

// latePeakIn is the largest release lateness in ms that a direction's
// delay line reported in the readings taken in (from, to]: each reading
// carries the peak since the one before it.
func latePeakIn(series []linkstats.Sample, from, to time.Duration) float64 {
	i := sort.Search(len(series), func(i int) bool { return series[i].T > from })
	var peak time.Duration
	for ; i < len(series) && series[i].T <= to; i++ {
		peak = max(peak, series[i].LatePeak)
	}
	return results.Round3(ms(peak))
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
