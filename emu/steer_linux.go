package emu

import (
	"context"
	"fmt"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/dcproxy"
	"github.com/dc-emu/emu/pdcp"
)

// steerRules are the flows with a PDCP scheduler of their own: each gets
// its own entity in the proxies, found by its server's port.
func steerRules(cfg config.Config) ([]dcproxy.SteerRule, error) {
	var rules []dcproxy.SteerRule
	for i, f := range cfg.Flows {
		if f.Path != config.PathDC || !f.Steered() {
			continue
		}
		sc, err := config.FlowScheduler(cfg.DC, f.Workload)
		if err != nil {
			return nil, fmt.Errorf("flows.%d.scheduler: %w", i, err)
		}
		rules = append(rules, dcproxy.SteerRule{Port: serverPort(f, i), Sched: sc})
	}
	return rules, nil
}

// steer gives both proxies of a direction the run's steered flows.
func steer(pp *proxyPair, cfg config.Config) error {
	rules, err := steerRules(cfg)
	if err != nil || len(rules) == 0 {
		return err
	}
	if err := pp.tx.Steer(rules); err != nil {
		return fmt.Errorf("pdcp %s: %w", pp.dir, err)
	}
	if err := pp.rx.Steer(rules); err != nil {
		return fmt.Errorf("pdcp %s: %w", pp.dir, err)
	}
	return nil
}

// duplicates reports whether a scheduler of the run sends PDUs on both
// links.
func duplicates(cfg config.Config) bool { return usesScheduler(cfg, pdcp.KindDuplicate) }

// queueAware reports whether a scheduler of the run chooses by the links'
// queues (smallest-delay), so the proxies must be told them.
func queueAware(cfg config.Config) bool { return usesScheduler(cfg, pdcp.KindSmallestDelay) }

// usesScheduler reports whether the run's DC scheduler, or that of a flow
// steered over DC, is kind.
func usesScheduler(cfg config.Config, kind string) bool {
	if cfg.DC.Scheduler == kind {
		return true
	}
	for _, f := range cfg.Flows {
		if f.Path == config.PathDC && f.Scheduler == kind {
			return true
		}
	}
	return false
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
				if d.Up != (pp.dir == "up") {
					continue
				}
				st, err := d.Shaper.Stats()
				if err != nil {
					continue // the next reading will do
				}
				pp.tx.SetLink(d.Link, pdcp.LinkState{RateBps: d.Shaper.Rate(), Delay: d.Shape.Delay, QueuedBytes: int(st.BacklogBytes)})
			}
		}
	}
}
