package emu

import (
	"time"

	"github.com/dc-emu/emu/emu/delayline"
	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/internal/procstat"
	"github.com/dc-emu/emu/emu/linkstats"
)

// The figures of a run's fidelity verdict, each from what its collector
// returns; the run (fidelity_linux.go) takes the readings.

// delayLineFigures is a delay line's release lateness over its life.
func delayLineFigures(dir string, delay time.Duration, late delayline.HistogramSnapshot) fidelity.DelayLine {
	return fidelity.DelayLine{
		Direction: dir, Delay: delay,
		LateP50: late.Quantile(0.50), LateP99: late.Quantile(0.99), LateMax: late.Max,
		Released: late.Count,
	}
}

// playerFigures is a trace player's lateness, none when it made no change
// after its first.
func playerFigures(dir, kind string, late delayline.HistogramSnapshot) []fidelity.Player {
	if late.Count == 0 {
		return nil
	}
	return []fidelity.Player{{Direction: dir, Kind: kind, Changes: late.Count,
		LateP50: late.Quantile(0.50), LateP99: late.Quantile(0.99), LateMax: late.Max}}
}

// rateLimiterFigures is what a rate limiter delivered while its queue
// provably held more than it was to send (linkstats.Saturated). capacity gives the configured rate over a
// stretch for trace-driven directions (nil: the rate in each reading).
func rateLimiterFigures(dir string, series []linkstats.Sample, capacity func(from, to time.Duration) float64) (fidelity.RateLimiter, error) {
	sat, err := linkstats.Saturated(series, linkstats.SaturationOptions{Capacity: capacity})
	if err != nil {
		return fidelity.RateLimiter{Direction: dir}, err
	}
	return fidelity.RateLimiter{Direction: dir, SaturatedSeconds: sat.Seconds, DeliveredBps: sat.Delivered, ConfiguredBps: sat.Configured}, nil
}

// threadFigures is a packet thread's CPU and run-queue wait between two
// readings of it.
func threadFigures(name string, a, b procstat.Reading) fidelity.Thread {
	u := procstat.Between(a, b)
	return fidelity.Thread{Name: name, CPU: u.CPU, Wait: u.Wait, MeanWait: u.MeanWait, Kernel: u.Kernel}
}

// endpointFigures is an endpoint process's CPU between two readings of it.
func endpointFigures(flow, role string, a, b procstat.Reading) fidelity.Endpoint {
	u := procstat.Between(a, b)
	return fidelity.Endpoint{Flow: flow, Role: role, CPU: u.CPU, Wait: u.Wait}
}

// softirqMeanWait is the longest mean wait per timeslice of the softirq
// threads read at both ends (by pid); false when none was.
func softirqMeanWait(start, end map[int]procstat.Reading) (time.Duration, bool) {
	var worst time.Duration
	known := false
	for pid, a := range start {
		b, ok := end[pid]
		if !ok {
			continue
		}
		known = true
		worst = max(worst, procstat.Between(a, b).MeanWait)
	}
	return worst, known
}

// hostSteal is the host's stolen share of CPU time between two readings.
func hostSteal(a, b procstat.Host) float64 { return procstat.HostBetween(a, b).Steal }
