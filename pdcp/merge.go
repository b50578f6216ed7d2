package pdcp

import "time"

// Merge adds the durations o recorded to h.
func (h *Histogram) Merge(o *Histogram) {
	h.Count += o.Count
	h.Sum += o.Sum
	h.Max = max(h.Max, o.Max)
	for i := range h.bins {
		h.bins[i] += o.bins[i]
	}
}

// Add sums the counters of another entity into c (a proxy with several
// entities reports them as one). MaxBuffered is left to the caller, who
// knows when the entities' buffers peaked together.
func (c *RxCounters) Add(o *RxCounters) {
	c.Received += o.Received
	c.Delivered += o.Delivered
	c.DeliveredInOrder += o.DeliveredInOrder
	c.DeliveredOnExpiry += o.DeliveredOnExpiry
	c.DeliveredOnFlush += o.DeliveredOnFlush
	c.Reordered += o.Reordered
	c.Held += o.Held
	c.DuplicatesDiscarded += o.DuplicatesDiscarded
	c.OldDiscarded += o.OldDiscarded
	c.GivenUp += o.GivenUp
	c.Expiries += o.Expiries
	c.HoldTime.Merge(&o.HoldTime)
}

// Add sums the counters of another entity into c.
func (c *TxCounters) Add(o *TxCounters) {
	c.PDUs += o.PDUs
	for i := range c.Link {
		c.Link[i] += o.Link[i]
		c.Bytes[i] += o.Bytes[i]
	}
}

// Observer is a Scheduler that accounts for the PDUs other schedulers put
// on the links it shares: with per-flow scheduling, smallest-delay's
// backlog estimate must include every flow's PDUs, not only its own.
type Observer interface {
	// Observe tells the scheduler that a PDU of size bytes went on to at
	// now, chosen by another scheduler.
	Observe(to Links, size int, now time.Duration)
}

func (s *smallestDelay) Observe(to Links, size int, now time.Duration) {
	for i := range s.links {
		if to.Has(i) {
			s.drain(i, now)
			s.backlog[i] += float64(size)
		}
	}
}
