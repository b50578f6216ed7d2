package emu

import (
	"fmt"
	"time"

	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/results"
)

// judgeFidelity judges whether the run's emulation kept up (package fidelity)
// from what the run measured between the start of its flows and its
// outcome: the delay lines' and trace players' lateness, the rate limiters' delivery while
// saturated, the packet threads' and endpoints' CPU and run-queue wait,
// the softirq threads' wait and the host's steal. Nil when the run never
// reached its flows.
func (r *runner) judgeFidelity() *fidelity.Fidelity {
	m := &r.meas
	if !m.started {
		return nil
	}
	var fm fidelity.Measurements
	for i, d := range r.em.Dirs() {
		if d.Loop != nil {
			// A packet's due time is its arrival plus the delay in force
			// then (a delay trace's included): the lateness measures the
			// line against the trace, and the limit scales with the
			// trace's median delay.
			fm.DelayLines = append(fm.DelayLines, delayLineFigures(d.Name, d.NominalDelay(), d.Loop.Snapshot().Late))
		}
		rate, impair := d.PlayerLate()
		fm.Players = append(fm.Players, playerFigures(d.Name, fidelity.PlayerRate, rate)...)
		fm.Players = append(fm.Players, playerFigures(d.Name, fidelity.PlayerImpairments, impair)...)
		if i >= len(m.series) || len(m.series[i]) < 2 {
			continue
		}
		var capacity func(from, to time.Duration) float64
		if d.Player != nil {
			capacity = d.Capacity // the trace's mean rate over each stretch
		}
		rl, err := rateLimiterFigures(d.Name, m.series[i], capacity)
		if err != nil {
			m.warnings = append(m.warnings, fmt.Sprintf("fidelity: %s: %v", d.Name, err))
			continue
		}
		fm.RateLimiters = append(fm.RateLimiters, rl)
	}
	for _, t := range m.probe.threads {
		if t.haveA && t.haveB {
			fm.Threads = append(fm.Threads, threadFigures(t.Name, t.a, t.b))
		}
	}
	for i, f := range m.probe.flows {
		for role, p := range f.procs {
			if p.haveA && p.haveB {
				fm.Endpoints = append(fm.Endpoints, endpointFigures(r.cfg.Flows[i].Name, endpointRoles[role], p.a, p.b))
			}
		}
	}
	pdcpCounters := r.em.PDCP()
	for _, dir := range r.em.PDCPDirs() {
		if b := pdcpCounters[dir].Batch; b != nil {
			fm.BatchPaths = append(fm.BatchPaths, batchFigures(dir, b, r.em.Dirs()))
		}
	}
	fm.HostSteal, fm.HostStealKnown = m.probe.steal, m.probe.stealOK
	fm.SoftirqMeanWait, fm.SoftirqKnown = m.probe.softirqWait, m.probe.softirqOK
	v := fidelity.Evaluate(fm, r.cfg.Fidelity)
	return &v
}

// batchFigures are one direction of the batch path as fidelity judges it:
// its losses, and its socket's wait against the shorter delay of the
// direction's links.
func batchFigures(dir string, b *results.BatchPath, dirs []*link.Dir) fidelity.BatchPath {
	ms := func(k string) time.Duration { return time.Duration(b.SocketWaitMs[k] * 1e6) }
	f := fidelity.BatchPath{Direction: dir, SocketDrops: b.SocketDrops, TUNRefused: b.TUNRefused, TUNDropped: b.TUNDropped,
		Seconds: uint64(b.SocketWaitMs["n"]), WaitMean: ms("mean"), WaitMax: ms("max"), Delay: -1}
	for _, d := range dirs {
		if d.Up == (dir == "up") && (f.Delay < 0 || d.NominalDelay() < f.Delay) {
			f.Delay = d.NominalDelay()
		}
	}
	f.Delay = max(f.Delay, 0)
	return f
}
