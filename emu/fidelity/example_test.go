package fidelity_test

import (
	"os"
	"time"

	"github.com/dc-emu/emu/emu/delayline"
	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/internal/procstat"
	"github.com/dc-emu/emu/emu/linkstats"
)

// A run fills Measurements from what it already collects; here with made-
// up readings, in the shapes the collectors return them.
func ExampleEvaluate() {
	// A delay line's counters at the end of the run.
	var late delayline.Histogram
	for i := range 10000 {
		late.Add(time.Duration(10+i%50) * time.Microsecond)
	}
	snap := late.Snapshot()

	// The rate limiter's readings (10 ms apart, queue never empty).
	sat := linkstats.Saturation{Seconds: 24.3, Intervals: 2430, Delivered: 19.994e6, Configured: 20e6}

	// The delay line's thread and the server process, read at the start
	// and the end of the flow (procstat.ReadThread, procstat.ReadProcess).
	t0 := time.Unix(0, 0)
	loopA := procstat.Reading{At: t0, Sched: procstat.Sched{OnCPU: 0, Wait: 0, Slices: 0}}
	loopB := procstat.Reading{At: t0.Add(30 * time.Second), Sched: procstat.Sched{OnCPU: 900 * time.Millisecond, Wait: 15 * time.Millisecond, Slices: 30000}}
	srvA := procstat.Reading{At: t0, Process: true}
	srvB := procstat.Reading{At: t0.Add(30 * time.Second), Process: true, Stat: procstat.Stat{User: 25 * time.Second, System: 4 * time.Second}}
	loop, srv := procstat.Between(loopA, loopB), procstat.Between(srvA, srvB)
	host := procstat.HostBetween(procstat.Host{Idle: time.Minute, CPUs: 2}, procstat.Host{Idle: 80 * time.Second, User: 40 * time.Second, CPUs: 2})

	m := fidelity.Measurements{
		DelayLines: []fidelity.DelayLine{{Direction: "link1.down", Delay: 10 * time.Millisecond,
			LateP50: snap.Quantile(0.5), LateP99: snap.Quantile(0.99), LateMax: snap.Quantile(1), Released: snap.Count}},
		RateLimiters: []fidelity.RateLimiter{{Direction: "link1.down", SaturatedSeconds: sat.Seconds,
			DeliveredBps: sat.Delivered, ConfiguredBps: sat.Configured}},
		Threads:   []fidelity.Thread{{Name: "delay link1.down", CPU: loop.CPU, Wait: loop.Wait, MeanWait: loop.MeanWait}},
		Endpoints: []fidelity.Endpoint{{Flow: "dc", Role: "server", CPU: srv.CPU, Wait: srv.Wait}},
		HostSteal: host.Steal, HostStealKnown: true,
		SoftirqMeanWait: 40 * time.Microsecond, SoftirqKnown: true,
	}
	fidelity.WriteText(os.Stdout, fidelity.Evaluate(m, fidelity.Defaults()), false)
	// Output:
	// fidelity: degraded (1 of 10 checks failed)
	//   FAIL  endpoint.cpu  dc server  0.97 cores  < 0.90 cores  CPU-bound at 0.97 of a core: flow dc is limited by the host, not the network
}
