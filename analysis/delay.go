package analysis

import (
	"math"
	"slices"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// DelaySeries is one flow's delay samples in time order: T in seconds
// (since the run's start where the source allows), MS in milliseconds.
// The flows' rtt_ms and owd_ms in summary.json, their timeseries.csv
// columns and the delay figures all come from these series, so that one
// definition gives every figure:
//
//   - TCP RTT: the sender's smoothed RTT (tcpi_rtt) of every TCP_INFO
//     sample, every subflow's for MPTCP, while the connection still had
//     data acknowledged (TCPInfoSeries);
//   - QUIC RTT: the sender's qlog smoothed_rtt, a step function read at a
//     fixed interval from its first RTT sample to its last metrics update
//     (QlogSRTTSeries), so that TCP and QUIC are sampled alike, in time;
//   - one-way delay: every send stamp the client read (OWDSeries).
type DelaySeries struct {
	T, MS []float64
}

// Len is the number of samples.
func (s DelaySeries) Len() int { return len(s.MS) }

// Stats summarises the samples (nearest-rank percentiles); false when
// there are none.
func (s DelaySeries) Stats() (results.DelayStats, bool) {
	return results.SummarizeDelays(slices.Clone(s.MS))
}

// StatsPtr is Stats as a pointer, nil when there are no samples (null in
// JSON).
func (s DelaySeries) StatsPtr() *results.DelayStats {
	st, ok := s.Stats()
	if !ok {
		return nil
	}
	st.P50, st.P95, st.P99 = round3(st.P50), round3(st.P95), round3(st.P99)
	st.Max, st.Mean = round3(st.Max), round3(st.Mean)
	return &st
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// BinMeans is the mean of the samples in each of n bins of width bin from
// time 0, by results.BinMeans's rule (bin k holds k·bin < T ≤ (k+1)·bin,
// as timeseries.csv stamps a bin with its end), so the delay columns and
// the workloads' columns of one timeseries.csv bin alike. A bin without
// samples is NaN.
func (s DelaySeries) BinMeans(bin time.Duration, n int) []float64 {
	at := make([]time.Duration, len(s.T))
	for i, t := range s.T {
		at[i] = time.Duration(math.Round(t * float64(time.Second)))
	}
	return results.BinMeans(at, s.MS, n, bin)
}

// OWDSeries is a one-way delay log as a series: read time and delay of
// every stamp.
func OWDSeries(rows []results.OWDRow) DelaySeries {
	s := DelaySeries{T: make([]float64, len(rows)), MS: make([]float64, len(rows))}
	for i, r := range rows {
		s.T[i] = r.T.Seconds()
		s.MS[i] = float64(r.OWD) / float64(time.Millisecond)
	}
	return s
}

// TCPInfoSeries is the smoothed RTT of a TCP_INFO log's samples, all
// subflows together in file order, up to each subflow's last sample that
// saw new data acknowledged (an idle connection's srtt stands still and
// would weigh the tail; a log without bytes_acked is used whole). Samples
// without an RTT are left out.
func TCPInfoSeries(rows []results.TCPInfoRow) DelaySeries {
	last := activeEnd(rows)
	var s DelaySeries
	for i, r := range rows {
		if i > last[r.Subflow] || math.IsNaN(r.SRTTMs) || r.SRTTMs <= 0 {
			continue
		}
		s.T = append(s.T, r.T)
		s.MS = append(s.MS, r.SRTTMs)
	}
	return s
}

// activeEnd maps each subflow to the index of its last row whose
// bytes_acked grew (or its last row, if the counter is unknown).
func activeEnd(rows []results.TCPInfoRow) map[uint32]int {
	end := map[uint32]int{}
	prev := map[uint32]int64{}
	for i, r := range rows {
		p, seen := prev[r.Subflow]
		switch {
		case r.BytesAcked == results.Unknown:
			end[r.Subflow] = i
		case !seen || r.BytesAcked > p:
			end[r.Subflow] = i
		}
		prev[r.Subflow] = r.BytesAcked
	}
	return end
}

// QlogSRTTSeries reads the smoothed RTT of a sender's qlog every step,
// from its first RTT sample to its last metrics update; T is seconds
// since the qlog's time 0 plus offsetS.
func QlogSRTTSeries(a *ConnAnalysis, step time.Duration, offsetS float64) DelaySeries {
	var s DelaySeries
	if a == nil || step <= 0 {
		return s
	}
	first := -1
	for i, m := range a.Metrics {
		if !isNaN(m.MinRTT) && !isNaN(m.SmoothedRTT) {
			first = i
			break
		}
	}
	if first < 0 {
		return s
	}
	stepMs := float64(step) / float64(time.Millisecond)
	end := a.Metrics[len(a.Metrics)-1].TimeMs
	i := first
	for t := a.Metrics[first].TimeMs; t <= end; t += stepMs {
		for i+1 < len(a.Metrics) && a.Metrics[i+1].TimeMs <= t {
			i++
		}
		if v := a.Metrics[i].SmoothedRTT; !isNaN(v) {
			s.T = append(s.T, t/1000+offsetS)
			s.MS = append(s.MS, v)
		}
		if len(s.T) > maxBins*100 {
			break // a damaged file's absurd time stamps
		}
	}
	return s
}

// CDF returns the empirical distribution of the samples: sorted values
// and the fraction of samples at or below each.
func (s DelaySeries) CDF() (x, p []float64) {
	x = slices.Clone(s.MS)
	x = slices.DeleteFunc(x, math.IsNaN)
	slices.Sort(x)
	p = make([]float64, len(x))
	for i := range x {
		p[i] = float64(i+1) / float64(len(x))
	}
	return x, p
}
