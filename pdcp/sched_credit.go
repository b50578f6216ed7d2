package pdcp

import (
	"math"
	"time"
)

// creditScheduler sends each PDU, among the legs whose flow-control credit
// admits it, on the one where it would arrive first: the lowest
// (backlog + size)/rate + delay, the backlog estimated as smallest-delay
// does (the caller's QueuedBytes, plus what was sent there since, drained
// at the link's rate). With no leg admitting it, Pick returns NoLinks. A
// down leg (rate 0) is taken only when no up leg has credit.
//
// Why earliest delivery and not a split by DBS (Mavenir's factor
// DBS_0/(DBS_0+DBS_1), interleaved): DBS measures free buffer, not rate.
// Two legs with empty buffers report equal DBS whatever their rates, so
// the split would be 1:1 until the slow leg's buffer fills, and the
// receiver would wait for the slow leg's PDUs in between: the strict
// alternation the issue warns about. Earliest delivery follows the rates
// and delays at once, keeps arrivals close to COUNT order (little
// reordering to wait out), and the credit still caps each leg's buffer.
//
// Why the backlog estimate and not the leg's bytes in flight: in flight
// includes the bytes on the delay line and those delivered since the last
// report, so in-flight/rate would count the leg's delay twice (and the
// report interval once), favouring the short-delay leg beyond its merit.
//
// FlowControl.CreditScheduler makes one and Wrap sets its gate; without a
// gate every leg admits and this is smallest-delay.
type creditScheduler struct {
	smallestDelay // link states and backlog estimate
	gate          creditGate
}

// creditGate is what the credit scheduler asks flow control: whether leg
// has credit for size bytes now. FlowControl implements it.
type creditGate interface {
	admits(leg, size int, now time.Duration) bool
}

func (s *creditScheduler) Pick(_ uint64, size int, now time.Duration) Links {
	best, bestCost := -1, math.Inf(1)
	for i := range s.links {
		s.drain(i, now)
		if s.gate != nil && !s.gate.admits(i, size, now) {
			continue
		}
		cost := math.Inf(1)
		if st := s.links[i]; st.up() {
			cost = (s.backlog[i]+float64(size))*8/st.RateBps + st.Delay.Seconds()
		}
		if best < 0 || cost < bestCost {
			best, bestCost = i, cost
		}
	}
	if best < 0 {
		return NoLinks
	}
	s.backlog[best] += float64(size)
	return linkOf(best)
}
