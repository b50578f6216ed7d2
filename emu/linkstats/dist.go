package linkstats

import (
	"math"
	"time"
)

// Dist is a distribution of delays over bytes: each byte counts once.
type Dist struct {
	// Bytes is how many bytes the figures are over (Ethernet frames).
	Bytes                    uint64
	P50, P95, P99, Max, Mean time.Duration
}

// piece is a run of mass bytes whose delay goes linearly from lo to hi
// seconds along the run, so its bytes are spread uniformly over [lo, hi].
type piece struct{ mass, lo, hi float64 }

// mixture is a distribution made of pieces.
type mixture []piece

func (m *mixture) add(mass, a, b float64) {
	if mass <= 0 {
		return
	}
	*m = append(*m, piece{mass, max(0, min(a, b)), max(0, a, b)})
}

// dist summarises the mixture; the zero Dist when it is empty.
func (m mixture) dist() Dist {
	var total, sum, top float64
	for _, p := range m {
		total += p.mass
		sum += p.mass * (p.lo + p.hi) / 2
		top = max(top, p.hi)
	}
	if total <= 0 {
		return Dist{}
	}
	return Dist{
		Bytes: uint64(math.Round(total)),
		P50:   seconds(m.quantile(0.50, total, top)),
		P95:   seconds(m.quantile(0.95, total, top)),
		P99:   seconds(m.quantile(0.99, total, top)),
		Max:   seconds(top),
		Mean:  seconds(sum / total),
	}
}

// quantile is the smallest delay x with at least q of the mass at or below
// x, found by bisection to a nanosecond.
func (m mixture) quantile(q, total, top float64) float64 {
	want := q * total
	lo, hi := 0.0, top
	for hi-lo > 1e-10 {
		mid := (lo + hi) / 2
		if m.cdf(mid) >= want {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// cdf is the mass at or below x.
func (m mixture) cdf(x float64) float64 {
	var c float64
	for _, p := range m {
		switch {
		case x >= p.hi:
			c += p.mass
		case x > p.lo:
			c += p.mass * (x - p.lo) / (p.hi - p.lo)
		}
	}
	return c
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }
