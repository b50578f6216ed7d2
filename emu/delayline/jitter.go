package delayline

import (
	"math"
	"math/rand/v2"
)

// smoothJitter is the order-preserving jitter process in units of its
// standard deviation: x is an Ornstein–Uhlenbeck process with rate λ = 1/τ
// and variance 2, y follows x through a first-order filter with the same
// rate (dy = λ(x − y)dt) and has variance 1. Stationary covariance
// Σ = [[2, 1], [1, 1]]. Over a step dt the exact transition is
// (x, y) ← Φ(x, y) + w with Φ = a·[[1, 0], [b, 1]], a = e^{−λdt}, b = λdt,
// and w ~ N(0, Σ − ΦΣΦᵀ), sampled by a 2×2 Cholesky factor.
type smoothJitter struct {
	x, y    float64
	last    int64 // time of the last step, ns
	started bool
}

// at advances the process to time t (ns, not before the previous call) and
// returns y.
func (j *smoothJitter) at(t int64, tau float64, rng *rand.Rand) float64 {
	if !j.started {
		z1, z2 := rng.NormFloat64(), rng.NormFloat64()
		j.x = math.Sqrt2 * z1
		j.y = (z1 + z2) / math.Sqrt2
		j.last, j.started = t, true
		return j.y
	}
	dt := float64(t - j.last)
	j.last = t
	if dt <= 0 {
		return j.y
	}
	b := dt / tau
	a2m1 := math.Expm1(-2 * b) // a² − 1, accurate for small steps
	a := math.Exp(-b)
	a2 := a2m1 + 1
	q11 := -2 * a2m1
	q12 := 1 - a2*(2*b+1)
	q22 := 1 - a2*(2*b*b+2*b+1)
	l11 := math.Sqrt(q11)
	var l21, l22 float64
	if l11 > 0 {
		l21 = q12 / l11
		l22 = math.Sqrt(math.Max(0, q22-l21*l21))
	}
	z1, z2 := rng.NormFloat64(), rng.NormFloat64()
	x := a*j.x + l11*z1
	y := a*(b*j.x+j.y) + l21*z1 + l22*z2
	j.x, j.y = x, y
	return y
}
