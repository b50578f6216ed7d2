package emu

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/dc-emu/emu/emu/delayline"
	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/topo"
	"github.com/dc-emu/emu/tracefmt"
)

// delayParams turns a direction's shape into delay line parameters.
func delayParams(s Shape) delayline.Params {
	return delayline.Params{
		Delay:      s.Delay,
		Jitter:     s.Jitter.StdDev(s.Delay),
		JitterCorr: s.JitterCorr,
		Loss:       s.Loss,
		Reorder:    s.Reorder,
	}
}

// dirSeed derives a direction's seed from the run's, so each direction
// draws its own loss and jitter and a run repeats exactly from its seed.
func dirSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", seed, name)
	return h.Sum64()
}

// startDelayLine binds the direction's queue in node and starts its loop.
func (e *Emulation) startDelayLine(d *linkDir, node *topo.NodeNS, num uint16) error {
	line, err := delayline.New(dirSeed(e.Config.Seed, d.name), delayParams(d.shape))
	if err != nil {
		return fmt.Errorf("%s: %w", d.name, err)
	}
	q, err := nfq.Open(delayline.QueueConfig(int(node.NS), num))
	if err != nil {
		return fmt.Errorf("%s: delay line queue %d in %s: %w", d.name, num, node.NSName, err)
	}
	d.line = line
	d.loop = delayline.Start(q, line)
	e.goLoop(d.name+" delay line", func(ctx context.Context) error {
		select {
		case <-ctx.Done():
			return nil
		case <-d.loop.Done():
			return d.loop.Err()
		}
	})
	return nil
}

// applyTraceImpairments sets a trace step's delay and loss on the
// direction's delay line when the trace carries them.
func (e *Emulation) applyTraceImpairments(d *linkDir, st tracefmt.Step) {
	if d.line == nil || d.player == nil || !(d.player.Trace.HasDelay || d.player.Trace.HasLoss) {
		return
	}
	s := d.shape
	if d.player.Trace.HasDelay {
		s.Delay = st.Delay
	}
	if d.player.Trace.HasLoss {
		s.Loss = st.Loss
	}
	d.line.SetParams(delayParams(s))
}

// closeDatapath stops the delay lines and proxies (their loops have seen
// the context end) and releases their queues.
func (e *Emulation) closeDatapath() {
	for _, d := range e.dirs {
		if d.loop != nil {
			d.loop.Close()
		}
	}
	for _, pp := range e.proxies {
		if pp.tx != nil {
			pp.tx.close()
		}
		if pp.rx != nil {
			pp.rx.q.Close()
		}
	}
}

// linkCounters returns each direction's rate limiter and delay line
// counters, for counters.json.
func (e *Emulation) linkCounters() map[string]any {
	out := map[string]any{}
	for _, d := range e.dirs {
		m := map[string]any{"rate_bps": d.shaper.Rate()}
		if st, err := d.shaper.Stats(); err == nil {
			m["qdisc"] = st
		}
		if d.loop != nil {
			s := d.loop.Snapshot()
			m["delay_line"] = map[string]any{
				"in": s.In, "lost": s.Lost, "released": s.Released, "overflow": s.Overflow,
				"late_us": map[string]float64{
					"p50": float64(s.Late.Quantile(0.5).Microseconds()),
					"p99": float64(s.Late.Quantile(0.99).Microseconds()),
				},
			}
		}
		out[d.name] = m
	}
	return out
}
