package tracefmt

import (
	"math/bits"
	"slices"
	"time"
)

// RateStats summarises one direction's capacity over time, in Mbit/s
// (10^6 bit/s). Every figure is time-weighted: a step counts for as long as
// it lasts.
type RateStats struct {
	Mean, Min, Max float64
	P5, P50, P95   float64
}

// Stats summarises a trace.
type Stats struct {
	Duration time.Duration
	Steps    int
	Down     RateStats
	Up       RateStats // meaningful if HasUp
	HasUp    bool

	// Delay summarises the downlink's one-way delay in milliseconds, and
	// Jumps its recurring rises; meaningful if HasDelay. UpDelay is the
	// uplink's, if HasUpDelay (otherwise Delay is both directions').
	Delay, UpDelay       RateStats
	Jumps                Jumps
	HasDelay, HasUpDelay bool
	// Loss summarises the downlink's loss probability (0 to 1); meaningful
	// if HasLoss. UpLoss is the uplink's, if HasUpLoss (otherwise Loss is
	// both directions').
	Loss, UpLoss       RateStats
	HasLoss, HasUpLoss bool
}

// Stats returns the trace's time-weighted statistics. A percentile p is the
// smallest rate r such that the trace spends at least p% of its time at or
// below r; when exactly p% lies at or below r, it is the midpoint between r
// and the next rate up, so that for equally long steps P50 is the usual
// median (the mean of the middle two of an even count).
func (t *Trace) Stats() Stats {
	s := Stats{Duration: t.End, Steps: len(t.Steps), HasUp: t.HasUp}
	s.Down = t.rateStats(func(st Step) float64 { return st.Down })
	if t.HasUp {
		s.Up = t.rateStats(func(st Step) float64 { return st.Up })
	}
	if s.HasDelay = t.HasDelay; s.HasDelay {
		// rateStats divides by 10^6: nanoseconds come out in milliseconds.
		s.Delay = t.rateStats(func(st Step) float64 { return float64(st.Delay) })
		s.Jumps = t.jumps(s.Delay)
	}
	if s.HasUpDelay = t.HasDelay && t.HasUpDelay; s.HasUpDelay {
		s.UpDelay = t.rateStats(func(st Step) float64 { return float64(st.UpDelay) })
	}
	if s.HasLoss = t.HasLoss; s.HasLoss {
		s.Loss = t.rateStats(func(st Step) float64 { return st.Loss * 1e6 })
	}
	if s.HasUpLoss = t.HasLoss && t.HasUpLoss; s.HasUpLoss {
		s.UpLoss = t.rateStats(func(st Step) float64 { return st.UpLoss * 1e6 })
	}
	return s
}

type weighted struct {
	rate float64
	dur  uint64 // ns
}

func (t *Trace) rateStats(rate func(Step) float64) RateStats {
	if len(t.Steps) == 0 || t.End <= 0 {
		return RateStats{}
	}
	ws := make([]weighted, len(t.Steps))
	var sum float64
	for i, st := range t.Steps {
		d := t.stepEnd(i) - st.At
		ws[i] = weighted{rate(st), uint64(d)}
		sum += ws[i].rate * d.Seconds()
	}
	slices.SortFunc(ws, func(a, b weighted) int {
		switch {
		case a.rate < b.rate:
			return -1
		case a.rate > b.rate:
			return 1
		}
		return 0
	})
	total := uint64(t.End)
	const mbit = 1e6
	return RateStats{
		Mean: sum / t.End.Seconds() / mbit,
		Min:  ws[0].rate / mbit,
		Max:  ws[len(ws)-1].rate / mbit,
		P5:   percentile(ws, 5, total) / mbit,
		P50:  percentile(ws, 50, total) / mbit,
		P95:  percentile(ws, 95, total) / mbit,
	}
}

// percentile walks rates sorted ascending. Comparing cumulative time ×100
// with p × total in 128-bit integers makes "exactly p%" exact.
func percentile(ws []weighted, p uint64, total uint64) float64 {
	tHi, tLo := bits.Mul64(p, total)
	var cum uint64
	for i, w := range ws {
		cum += w.dur
		hi, lo := bits.Mul64(cum, 100)
		if hi < tHi || (hi == tHi && lo < tLo) {
			continue
		}
		if hi == tHi && lo == tLo && i+1 < len(ws) {
			return (w.rate + ws[i+1].rate) / 2
		}
		return w.rate
	}
	return ws[len(ws)-1].rate
}
