package pdcp

import (
	"math"
	"time"
)

// smallestDelay sends each PDU on the link where it would arrive first now:
// the one with the lowest (backlog + size)/rate + delay. The backlog starts
// from the caller's last QueuedBytes for the link, grows by every PDU sent
// there since, and drains at the link's rate as time passes, so between two
// SetLinkState calls the scheduler does not pile everything on one link.
// A link with rate 0 is down; with both down everything goes on link 0.
type smallestDelay struct {
	links   [2]LinkState
	backlog [2]float64       // bytes believed queued on each link
	last    [2]time.Duration // when backlog was last drained
	fresh   [2]bool          // backlog was just set: start draining from the next Pick
}

func (s *smallestDelay) SetLinkState(i int, st LinkState) {
	s.links[i] = st
	s.backlog[i] = float64(max(st.QueuedBytes, 0))
	s.fresh[i] = true
}

func (s *smallestDelay) Pick(_ uint64, size int, now time.Duration) Links {
	best, bestCost := 0, math.Inf(1)
	for i := range s.links {
		s.drain(i, now)
		st := s.links[i]
		if !st.up() {
			continue
		}
		cost := (s.backlog[i]+float64(size))*8/st.RateBps + st.Delay.Seconds()
		if cost < bestCost {
			best, bestCost = i, cost
		}
	}
	s.backlog[best] += float64(size)
	return linkOf(best)
}

// drain removes what link i sent since the last Pick from its backlog.
func (s *smallestDelay) drain(i int, now time.Duration) {
	if s.fresh[i] {
		s.fresh[i] = false
		s.last[i] = now
		return
	}
	if el := now - s.last[i]; el > 0 {
		s.backlog[i] = max(s.backlog[i]-s.links[i].RateBps/8*el.Seconds(), 0)
		s.last[i] = now
	}
}
