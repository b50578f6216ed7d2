package pdcp

import "time"

// adaptive is batch with a split that follows the links' current rates: at
// the start of every batch of N COUNTs it sets n0 = batchCut(k, N·r0/(r0+r1))
// from the latest LinkState, so the split matches the bandwidth ratio (the
// paper's recommendation) and reordering stays batch-shaped. Until a rate is
// known it uses the configured split. A PDU whose batch slot falls on a link
// that went down during the batch goes on the other link if that one is up.
type adaptive struct {
	n        uint64
	fallback Split
	links    [2]LinkState
	batchID  uint64 // batch index + 1 of the batch n0 was computed for; 0: none yet
	n0       uint64
}

func (s *adaptive) SetLinkState(i int, st LinkState) { s.links[i] = st }

func (s *adaptive) Pick(count uint64, _ int, _ time.Duration) Links {
	if id := count/s.n + 1; id != s.batchID {
		s.batchID = id
		s.n0 = batchCut(id-1, float64(s.n)*s.Share0())
	}
	i := 1
	if count%s.n < s.n0 {
		i = 0
	}
	if !s.links[i].up() && s.links[1-i].up() {
		i = 1 - i
	}
	return linkOf(i)
}

// Share0 is link 0's share of the current rates, or of the configured split
// while no rate is known.
func (s *adaptive) Share0() float64 {
	r0, r1 := max(s.links[0].RateBps, 0), max(s.links[1].RateBps, 0)
	if sh := r0 / (r0 + r1); sh >= 0 && sh <= 1 { // not NaN: a rate is known and finite
		return sh
	}
	return s.fallback.Share0()
}
