package linkstats

import (
	"fmt"
	"math"
	"time"
)

// QueueDelay is how long bytes waited in one rate limiter's queue.
type QueueDelay struct {
	// Measured comes from the counters (see the package doc): every byte
	// that left the queue after the first reading counts once, except
	// those that had arrived before it (Unmeasured).
	Measured Dist
	// Unmeasured is the bytes that left after the first reading but had
	// arrived before it, so their arrival time is unknown. It is 0 when
	// the series starts with an empty queue, as a run's does.
	Unmeasured uint64
	// Derived is backlog ÷ rate at each reading in force (the wait a byte
	// arriving then would see if the rate held), each weighted by the bytes
	// accepted until the next reading. Readings in an outage have no such
	// figure and are left out. It is derived, not measured: label it so.
	Derived Dist
	// Bins is the series over fixed-width bins of departure time.
	Bins []Bin
}

// Bin is one time bin of the queueing delay series.
type Bin struct {
	// End is the end of the bin since the run's epoch; the bin holds the
	// bytes that left in (End − width, End].
	End time.Duration
	// Bytes is how many bytes (Ethernet frames) left in the bin, and Mean
	// and Max their measured delay; both 0 when none left.
	Bytes     uint64
	Mean, Max time.Duration
	// Derived is backlog ÷ rate at the last reading at or before End;
	// DerivedValid is false when there is none or it was in an outage.
	Derived      time.Duration
	DerivedValid bool
}

// QueueDelays computes the queueing delay of one link direction from its
// usable readings (see Usable), with a time series in bins of binWidth.
func QueueDelays(samples []Sample, binWidth time.Duration) (QueueDelay, error) {
	var q QueueDelay
	if binWidth <= 0 {
		return q, fmt.Errorf("linkstats: bin width %v, want > 0", binWidth)
	}
	if err := check(samples); err != nil {
		return q, err
	}
	samples = Usable(samples)
	if len(samples) == 0 {
		return q, nil
	}
	c := newCurves(samples)
	var all mixture
	bins := newBinner(samples[len(samples)-1].T, binWidth)
	var unmeasured float64
	c.walk(func(p span) {
		if p.early {
			unmeasured += p.mass
			return
		}
		all.add(p.mass, p.j0, p.j1)
		bins.add(p)
	})
	q.Measured = all.dist()
	q.Unmeasured = uint64(math.Round(unmeasured))

	var derived mixture
	for i := range len(samples) - 1 {
		if d, ok := derivedDelay(samples[i]); ok {
			derived.add(c.a[i+1]-c.a[i], d, d)
		}
	}
	q.Derived = derived.dist()
	q.Bins = bins.finish(samples)
	return q, nil
}

// derivedDelay is backlog ÷ rate at one reading, in seconds. The HTB class
// charges each frame its full length at the wire rate, so the backlog in
// frames over the wire rate is exactly the time to send it.
func derivedDelay(s Sample) (float64, bool) {
	if s.Rate <= 0 {
		return 0, false
	}
	return float64(s.Backlog) * 8 / WireRate(s.Rate, s.header()), true
}

// curves are the sent and accepted counts at each reading, in bytes since
// the first reading's sent count, and the readings' times in seconds.
type curves struct {
	t, s, a []float64
}

func newCurves(samples []Sample) curves {
	n := len(samples)
	c := curves{t: make([]float64, n), s: make([]float64, n), a: make([]float64, n)}
	base := samples[0].Bytes
	for i, x := range samples {
		c.t[i] = x.T.Seconds()
		c.s[i] = float64(x.Bytes - base)
		c.a[i] = c.s[i] + float64(x.Backlog)
		// The class and the leaf are read one after the other, so a
		// packet can move from the backlog to the sent count between the
		// two reads and make the accepted count step back; it never does.
		if i > 0 {
			c.a[i] = max(c.a[i], c.a[i-1])
		}
	}
	return c
}

// span is a run of mass bytes that left between departure times t0 and t1
// (seconds), their delay going linearly from j0 to j1. early spans are
// bytes that arrived before the first reading (no delay known).
type span struct {
	mass, t0, t1, j0, j1 float64
	early                bool
}

// walk calls f for the spans of departed bytes, in departure order. Between
// consecutive breakpoints of either curve, both the departure time
// S⁻¹(x) and the arrival time A⁻¹(x) of byte x are linear in x.
func (c curves) walk(f func(span)) {
	j := 0 // arrival interval: a[j] ≤ x < a[j+1]
	for i := range len(c.t) - 1 {
		s0, s1 := c.s[i], c.s[i+1]
		if s1 <= s0 {
			continue // nothing left in this interval
		}
		dep := func(x float64) float64 { return c.t[i] + (x-s0)/(s1-s0)*(c.t[i+1]-c.t[i]) }
		x := s0
		if a0 := c.a[0]; x < a0 {
			e := min(s1, a0)
			f(span{mass: e - x, t0: dep(x), t1: dep(e), early: true})
			x = e
		}
		for x < s1 {
			for c.a[j+1] <= x {
				j++
			}
			arr := func(x float64) float64 {
				return c.t[j] + (x-c.a[j])/(c.a[j+1]-c.a[j])*(c.t[j+1]-c.t[j])
			}
			e := min(s1, c.a[j+1])
			d0, d1 := dep(x), dep(e)
			f(span{mass: e - x, t0: d0, t1: d1, j0: d0 - arr(x), j1: d1 - arr(e)})
			x = e
		}
	}
}

// binner accumulates spans into fixed-width bins of departure time.
type binner struct {
	w     time.Duration
	width float64 // seconds
	mass  []float64
	sum   []float64 // mass × mean delay
	top   []float64
}

func newBinner(last time.Duration, width time.Duration) *binner {
	n := max(1, int((last+width-1)/width))
	return &binner{w: width, width: width.Seconds(), mass: make([]float64, n), sum: make([]float64, n), top: make([]float64, n)}
}

// edge is the end of bin k in seconds: bin k holds (k·w, (k+1)·w].
func (b *binner) edge(k int) float64 { return (time.Duration(k+1) * b.w).Seconds() }

// next is the bin a span running on from u lies in next: the first whose
// end is after u.
func (b *binner) next(u float64) int {
	k := min(len(b.mass)-1, max(0, int(u/b.width)-1))
	for k > 0 && b.edge(k-1) > u {
		k--
	}
	for k < len(b.mass)-1 && b.edge(k) <= u {
		k++
	}
	return k
}

func (b *binner) add(p span) {
	for u0 := p.t0; u0 < p.t1; {
		k := b.next(u0)
		u1 := min(p.t1, b.edge(k))
		if k == len(b.mass)-1 {
			u1 = p.t1
		}
		f0, f1 := (u0-p.t0)/(p.t1-p.t0), (u1-p.t0)/(p.t1-p.t0)
		j0, j1 := p.j0+f0*(p.j1-p.j0), p.j0+f1*(p.j1-p.j0)
		m := (f1 - f0) * p.mass
		b.mass[k] += m
		b.sum[k] += m * max(0, (j0+j1)/2)
		b.top[k] = max(b.top[k], j0, j1)
		u0 = u1
	}
}

func (b *binner) finish(samples []Sample) []Bin {
	out := make([]Bin, len(b.mass))
	i := 0
	for k := range out {
		end := time.Duration(k+1) * b.w
		bin := Bin{End: end, Bytes: uint64(math.Round(b.mass[k]))}
		if b.mass[k] > 0 {
			bin.Mean, bin.Max = seconds(b.sum[k]/b.mass[k]), seconds(b.top[k])
		}
		for i < len(samples) && samples[i].T <= end {
			i++
		}
		if i > 0 {
			if d, ok := derivedDelay(samples[i-1]); ok {
				bin.Derived, bin.DerivedValid = seconds(d), true
			}
		}
		out[k] = bin
	}
	return out
}
