package network

import (
	"context"
	"time"

	"github.com/dc-emu/emu/pdcp"
)

// steerRules are the flows with a PDCP scheduler of their own: each gets
// its own entity in the proxies, found by its server's port.
func (e *Emulation) steerRules() []pdcp.SteerRule {
	var rules []pdcp.SteerRule
	for _, f := range e.set.steered {
		rules = append(rules, pdcp.SteerRule{Port: ServerPort(e.Config.Flows[f.flow], f.flow), Sched: f.sched})
	}
	return rules
}

// queuePeriod is how often the transmit proxies learn the links' queues.
const queuePeriod = 10 * time.Millisecond

// trackQueues tells the transmit proxies every queuePeriod how many bytes
// wait in each link's rate limiter, with its rate and delay, until ctx
// ends: smallest-delay starts its estimate of each link's backlog from it
// and counts the PDUs it (and, with per-flow scheduling, every entity) has
// sent since.
func (e *Emulation) trackQueues(ctx context.Context) error {
	t := time.NewTicker(queuePeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		for _, pp := range e.proxies {
			for _, d := range e.dirs {
				if d.Up != (pp.direction() == "up") {
					continue
				}
				st, err := d.Shaper.Stats()
				if err != nil {
					continue // the next reading will do
				}
				pp.setLink(d.Link, pdcp.LinkState{RateBps: d.Shaper.Rate(), Delay: d.Delay(), QueuedBytes: int(st.BacklogBytes)})
			}
		}
	}
}
