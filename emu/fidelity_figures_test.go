package emu

import (
	"math"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/delayline"
	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/internal/procstat"
	"github.com/dc-emu/emu/emu/linkstats"
)

// The figures a run's verdict is made of, from readings in the shapes the
// collectors return, judged by fidelity.Evaluate: every check of a run
// whose host kept up passes, and each kind of trouble fails its own check.
func TestVerdictFigures(t *testing.T) {
	var late delayline.Histogram
	for i := range 10000 {
		late.Add(time.Duration(20+i%40) * time.Microsecond)
	}
	late.Add(7 * time.Millisecond)
	dl := delayLineFigures("link1.down", 10*time.Millisecond, late.Snapshot())
	if dl.Released != 10001 || dl.LateMax != 7*time.Millisecond || dl.LateP99 > 60*time.Microsecond || dl.LateP50 < 30*time.Microsecond {
		t.Errorf("delay line figures %+v", dl)
	}

	// A queue kept above 60 kB at 20 Mbit/s for 3 s, read every 10 ms.
	var series []linkstats.Sample
	const rate = 20e6
	for k := range 301 {
		tt := time.Duration(k) * 10 * time.Millisecond
		frames := uint64(k) * 16 // 16 full frames per 10 ms: 19.2 Mbit/s of IP, 96 % of the rate
		series = append(series, linkstats.Sample{T: tt, Bytes: frames * linkstats.MaxFrame, Packets: frames, Backlog: 60000, Rate: rate})
	}
	rl, err := rateLimiterFigures("link1.down", series, nil)
	if err != nil || rl.SaturatedSeconds < 2.9 || math.Abs(rl.DeliveredBps/rl.ConfiguredBps-0.96) > 1e-6 {
		t.Errorf("rate limiter figures %+v, %v", rl, err)
	}
	traced, err := rateLimiterFigures("link1.down", series, func(from, to time.Duration) float64 { return 10e6 })
	if err != nil || math.Abs(traced.ConfiguredBps-10e6) > 1 {
		t.Errorf("with the player's capacity: %+v, %v", traced, err)
	}
	if _, err := rateLimiterFigures("x", []linkstats.Sample{{T: 2}, {T: 1}}, nil); err == nil {
		t.Error("a series going back in time gave no error")
	}

	t0 := time.Unix(1000, 0)
	th := threadFigures("delay link1.down",
		procstat.Reading{At: t0},
		procstat.Reading{At: t0.Add(10 * time.Second), Sched: procstat.Sched{OnCPU: time.Second, Wait: 20 * time.Millisecond, Slices: 10000}})
	if th.CPU != 0.1 || th.Wait != 0.002 || th.MeanWait != 2*time.Microsecond {
		t.Errorf("thread figures %+v", th)
	}
	ep := endpointFigures("dc", "server",
		procstat.Reading{At: t0, Process: true, Stat: procstat.Stat{User: time.Second}},
		procstat.Reading{At: t0.Add(4 * time.Second), Process: true, Stat: procstat.Stat{User: 4 * time.Second, System: 800 * time.Millisecond},
			Sched: procstat.Sched{Wait: 400 * time.Millisecond}})
	if math.Abs(ep.CPU-0.95) > 1e-9 || math.Abs(ep.Wait-0.1) > 1e-9 || ep.Flow != "dc" || ep.Role != "server" {
		t.Errorf("endpoint figures %+v", ep)
	}
	soft, ok := softirqMeanWait(
		map[int]procstat.Reading{10: {At: t0}, 20: {At: t0}, 30: {At: t0}},
		map[int]procstat.Reading{
			10: {At: t0.Add(time.Second), Sched: procstat.Sched{Wait: time.Millisecond, Slices: 100}},
			20: {At: t0.Add(time.Second), Sched: procstat.Sched{Wait: 60 * time.Millisecond, Slices: 10}},
		})
	if !ok || soft != 6*time.Millisecond {
		t.Errorf("softirq wait %v (%v), want the worst thread's 6ms", soft, ok)
	}
	if _, ok := softirqMeanWait(map[int]procstat.Reading{1: {}}, nil); ok {
		t.Error("softirq wait known without an end reading")
	}
	steal := hostSteal(procstat.Host{Idle: 10 * time.Second, CPUs: 2}, procstat.Host{Idle: 19 * time.Second, User: 800 * time.Millisecond, Steal: 200 * time.Millisecond, CPUs: 2})
	if math.Abs(steal-0.02) > 1e-9 {
		t.Errorf("steal %v", steal)
	}

	v := fidelity.Evaluate(fidelity.Measurements{
		DelayLines: []fidelity.DelayLine{dl}, RateLimiters: []fidelity.RateLimiter{rl},
		Threads: []fidelity.Thread{th}, Endpoints: []fidelity.Endpoint{ep},
		HostSteal: steal, HostStealKnown: true, SoftirqMeanWait: soft, SoftirqKnown: true,
	}, fidelity.Defaults())
	failed := map[string]bool{}
	for _, c := range v.Failed() {
		failed[c.Name] = true
	}
	// The 96 % rate, the 0.95-core server and the 6 ms softirq wait fail;
	// the rest pass.
	want := map[string]bool{fidelity.CheckRate: true, fidelity.CheckEndpointCPU: true, fidelity.CheckSoftirq: true}
	if v.Status != fidelity.Degraded || len(failed) != len(want) {
		t.Errorf("verdict %s, failed %v, want %v", v.Status, failed, want)
	}
	for n := range want {
		if !failed[n] {
			t.Errorf("%s did not fail", n)
		}
	}
}
