package pdcp

import (
	"math"
	"time"
)

// weighted spreads PDUs over the links in the ratio a:b one PDU at a time
// (smooth weighted round robin, as in nginx): each link earns its weight per
// PDU, the richer link sends and pays the total. With integer weights the
// pattern repeats every a+b PDUs and holds the ratio exactly, and the links
// alternate as evenly as the ratio allows (1:1 → 0,1,0,1; 3:1 → 0,0,1,0).
type weighted struct {
	w      [2]int64
	credit [2]int64
}

func newWeighted(sp Split) *weighted {
	w := integerWeights(sp)
	return &weighted{w: w}
}

func (s *weighted) Pick(uint64, int, time.Duration) Links {
	s.credit[0] += s.w[0]
	s.credit[1] += s.w[1]
	i := 0
	if s.credit[1] > s.credit[0] {
		i = 1
	}
	s.credit[i] -= s.w[0] + s.w[1]
	return linkOf(i)
}

func (s *weighted) SetLinkState(int, LinkState) {}

// integerWeights turns a split into integer weights with the same ratio,
// reduced by their gcd: decimals as ParseSplit reads them ("0.3:0.7")
// become exact integers (3:7); anything finer is rounded to a resolution
// of 1e-6 of the larger weight.
func integerWeights(sp Split) [2]int64 {
	scale := 1.0
	for k := 0; k <= 6; k++ {
		a, b := sp[0]*scale, sp[1]*scale
		if a < 1e12 && b < 1e12 && isInt(a) && isInt(b) {
			return reduce(int64(math.Round(a)), int64(math.Round(b)))
		}
		scale *= 10
	}
	m := math.Max(sp[0], sp[1])
	return reduce(int64(math.Round(sp[0]/m*1e6)), int64(math.Round(sp[1]/m*1e6)))
}

func isInt(v float64) bool { return math.Abs(v-math.Round(v)) < 1e-9*math.Max(1, v) }

func reduce(a, b int64) [2]int64 {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	if x == 0 {
		return [2]int64{a, b}
	}
	return [2]int64{a / x, b / x}
}
