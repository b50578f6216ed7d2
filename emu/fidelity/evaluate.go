package fidelity

import (
	"fmt"
	"math"
	"time"
)

// Check names.
const (
	CheckLateP99        = "delay_line.late_p99"
	CheckLateMax        = "delay_line.late_max"
	CheckPlayerLate     = "trace_player.late_p99"
	CheckRate           = "rate_limiter.rate"
	CheckThreadWait     = "thread.wait"
	CheckThreadMeanWait = "thread.mean_wait"
	CheckThreadCPU      = "thread.cpu"
	CheckEndpointCPU    = "endpoint.cpu"
	CheckEndpointWait   = "endpoint.wait"
	CheckSoftirq        = "host.softirq_wait"
	CheckSteal          = "host.steal"
	CheckBatchLost      = "pdcp.batch_lost"
	CheckSocketWait     = "pdcp.socket_wait"
)

// Units of Check.Value and Check.Threshold.
const (
	UnitMs      = "ms"
	UnitUs      = "µs"
	UnitPercent = "%"
	UnitCores   = "cores"
	UnitRatio   = "ratio"
	UnitPackets = "packets"
)

// Evaluate judges a run's measurements; zero fields of th take their
// defaults.
func Evaluate(m Measurements, th Thresholds) Fidelity {
	th = th.filled()
	var cs []Check
	for _, d := range m.DelayLines {
		cs = append(cs, lateChecks(d, th)...)
	}
	for _, p := range m.Players {
		cs = append(cs, playerCheck(p, th))
	}
	for _, r := range m.RateLimiters {
		cs = append(cs, rateCheck(r, th))
	}
	for _, t := range m.Threads {
		cs = append(cs, threadChecks(t, th)...)
	}
	for _, e := range m.Endpoints {
		cs = append(cs, endpointChecks(e, th)...)
	}
	for _, b := range m.BatchPaths {
		cs = append(cs, batchCheck(b), socketWaitCheck(b, th))
	}
	cs = append(cs, softirqCheck(m, th), stealCheck(m, th))
	f := Fidelity{Status: OK, Checks: cs}
	for _, c := range cs {
		if !c.OK {
			f.Status = Degraded
		}
	}
	return f
}

func inMs(d time.Duration) float64 { return float64(d) / 1e6 }
func inUs(d time.Duration) float64 { return float64(d) / 1e3 }

func lateChecks(d DelayLine, th Thresholds) []Check {
	limit := th.LateP99Limit(d.Delay)
	p99 := Check{Name: CheckLateP99, Subject: d.Direction, Value: inMs(d.LateP99), Threshold: inMs(limit), Unit: UnitMs}
	top := Check{Name: CheckLateMax, Subject: d.Direction, Value: inMs(d.LateMax), Threshold: inMs(th.LateMax), Unit: UnitMs}
	if d.Released == 0 {
		for _, c := range []*Check{&p99, &top} {
			c.OK, c.Skipped, c.Detail = true, true, "released no packet"
		}
		return []Check{p99, top}
	}
	p99.OK = d.LateP99 <= limit
	if p99.OK {
		p99.Detail = fmt.Sprintf("p99 %.3f ms after the due time (p50 %.3f ms) over %d releases", inMs(d.LateP99), inMs(d.LateP50), d.Released)
	} else {
		p99.Detail = fmt.Sprintf("1 %% of %d releases more than %.3f ms late, beyond %.3f ms (%s): the host did not keep up (the thread and softirq checks name the cause)",
			d.Released, inMs(d.LateP99), inMs(limit), lateRule(d.Delay, limit, th))
	}
	top.OK = d.LateMax <= th.LateMax
	if top.OK {
		top.Detail = fmt.Sprintf("no release more than %.3f ms late", inMs(d.LateMax))
	} else {
		top.Detail = fmt.Sprintf("a release %.3f ms late: the delay line stalled that long", inMs(d.LateMax))
	}
	return []Check{p99, top}
}

// playerCheck judges how late a trace player's changes took effect.
func playerCheck(p Player, th Thresholds) Check {
	c := Check{Name: CheckPlayerLate, Subject: p.Direction + " " + p.Kind, Value: inMs(p.LateP99), Threshold: inMs(th.PlayerLate), Unit: UnitMs}
	c.OK = p.LateP99 <= th.PlayerLate
	if c.OK {
		c.Detail = fmt.Sprintf("p99 %.3f ms after the trace's time (p50 %.3f, max %.3f ms) over %d changes", inMs(p.LateP99), inMs(p.LateP50), inMs(p.LateMax), p.Changes)
	} else {
		c.Detail = fmt.Sprintf("1 %% of %d changes took effect more than %.3f ms after the trace's time (max %.3f ms): the %s followed the trace that much late (the player is a real-time thread one priority below the packet loops: only the host, or the loops themselves, keep it from its CPU)",
			p.Changes, inMs(p.LateP99), inMs(p.LateMax), playerWhat[p.Kind])
	}
	return c
}

var playerWhat = map[string]string{PlayerRate: "link's rate", PlayerImpairments: "link's delay and loss"}

// lateRule says where a p99 limit comes from.
func lateRule(delay, limit time.Duration, th Thresholds) string {
	switch {
	case limit == th.LateFloor:
		return "the floor"
	case limit == th.LateCeil:
		return "the ceiling"
	}
	return fmt.Sprintf("%.3g %% of the %v delay", 100*th.LateFrac, delay)
}

func rateCheck(r RateLimiter, th Thresholds) Check {
	c := Check{Name: CheckRate, Subject: r.Direction, Threshold: th.RateTolerance, Unit: UnitRatio}
	if r.SaturatedSeconds < th.MinSaturated.Seconds() || r.ConfiguredBps <= 0 {
		c.OK, c.Skipped = true, true
		c.Detail = fmt.Sprintf("queue provably backlogged for %.2f s, under the %.3g s needed to judge the rate", r.SaturatedSeconds, th.MinSaturated.Seconds())
		return c
	}
	c.Value = r.DeliveredBps / r.ConfiguredBps
	// A tolerance given in percent is met exactly at its edge, whatever
	// the rounding of the division.
	const eps = 1e-9
	c.OK = math.Abs(c.Value-1) <= th.RateTolerance+eps
	what := "delivered"
	switch {
	case c.Value < 1-th.RateTolerance-eps:
		what = "starved: delivered"
	case c.Value > 1+th.RateTolerance+eps:
		what = "too fast: delivered"
	}
	c.Detail = fmt.Sprintf("%s %.3f of %.3f Mbit/s over %.2f s saturated", what, r.DeliveredBps/1e6, r.ConfiguredBps/1e6, r.SaturatedSeconds)
	return c
}

func threadChecks(t Thread, th Thresholds) []Check {
	wait := Check{Name: CheckThreadWait, Subject: t.Name, Value: 100 * t.Wait, Threshold: 100 * th.ThreadWait, Unit: UnitPercent, OK: t.Wait <= th.ThreadWait}
	mean := Check{Name: CheckThreadMeanWait, Subject: t.Name, Value: inUs(t.MeanWait), Threshold: inUs(th.ThreadMeanWait), Unit: UnitUs, OK: t.MeanWait <= th.ThreadMeanWait}
	cpu := Check{Name: CheckThreadCPU, Subject: t.Name, Value: t.CPU, Threshold: th.ThreadCPU, Unit: UnitCores, OK: t.CPU <= th.ThreadCPU}
	wait.Detail = fmt.Sprintf("waited for a CPU %.3g %% of the run", 100*t.Wait)
	mean.Detail = fmt.Sprintf("%.1f µs per wake-up before it ran", inUs(t.MeanWait))
	if !wait.OK || !mean.OK {
		s := ": the host's CPUs were busy when it needed one"
		wait.Detail += s
		mean.Detail += s
	}
	cpu.Detail = fmt.Sprintf("used %.2f of a core", t.CPU)
	if t.Kernel > 0 {
		cpu.Detail += fmt.Sprintf(", %.0f %% of it in the kernel", 100*t.Kernel)
	}
	if !cpu.OK {
		cpu.Detail += ": too busy to absorb bursts, packets queue in the kernel"
	}
	return []Check{wait, mean, cpu}
}

func endpointChecks(e Endpoint, th Thresholds) []Check {
	subject := e.Flow + " " + e.Role
	c := Check{Name: CheckEndpointCPU, Subject: subject, Value: e.CPU, Threshold: th.EndpointCPU, Unit: UnitCores, OK: e.CPU < th.EndpointCPU}
	c.Detail = fmt.Sprintf("used %.2f of a core over the flow", e.CPU)
	if !c.OK {
		c.Detail = fmt.Sprintf("CPU-bound at %.2f of a core: flow %s is limited by the host, not the network", e.CPU, e.Flow)
	}
	return []Check{c, endpointWaitCheck(e, subject, th)}
}

// endpointWaitFloor is the least run-queue wait, as a share of the flow's
// wall time, that endpoint.wait judges: an endpoint that hardly runs
// (a cbr sender) waits little in absolute terms however its share falls.
const endpointWaitFloor = 0.05

// endpointWaitCheck judges the share of an endpoint's runnable time that
// it spent waiting for a CPU: wait ÷ (wait + CPU), its threads' summed.
func endpointWaitCheck(e Endpoint, subject string, th Thresholds) Check {
	w := Check{Name: CheckEndpointWait, Subject: subject, Threshold: 100 * th.EndpointWait, Unit: UnitPercent, OK: true}
	if e.Wait+e.CPU > 0 {
		w.Value = 100 * e.Wait / (e.Wait + e.CPU)
	}
	w.Detail = fmt.Sprintf("waited for a CPU %.3g %% of the time it was runnable (%.3g %% of the flow, its threads summed; %.2f of a core used)", w.Value, 100*e.Wait, e.CPU)
	if e.Wait < endpointWaitFloor {
		return w
	}
	if w.OK = w.Value <= w.Threshold; !w.OK {
		w.Detail += fmt.Sprintf(": the host's CPUs were oversubscribed, flow %s is limited by the host, not the network", e.Flow)
	}
	return w
}

// batchCheck fails when the PDCP batch path lost packets between the
// kernel and the transmitting proxy, between the links and the receiver,
// or between the receiver and the kernel: losses
// the emulated network did not cause, from a proxy that did not keep up.
func batchCheck(b BatchPath) Check {
	lost := b.SocketDrops + b.TUNRefused + b.TUNDropped
	c := Check{Name: CheckBatchLost, Subject: "pdcp " + b.Direction, Value: float64(lost), Unit: UnitPackets, OK: lost == 0}
	c.Detail = fmt.Sprintf("the batch path's transmitting gateway dropped %d packets in its TUN's full queue; its receiving gateway %d PDUs in its socket and %d in refused TUN writes",
		b.TUNDropped, b.SocketDrops, b.TUNRefused)
	if !c.OK {
		c.Detail += ": the proxy did not keep up (the host was busy or the rate beyond it), and those losses are the emulator's, not the network's"
	}
	return c
}

// socketWaitCheck judges how long the bytes read in the worst second
// had waited in the receiving gateway's socket for the receive loop, as a
// delay line's lateness on the shorter link would be judged: a PDU the
// link released on time reaches PDCP that much later.
func socketWaitCheck(b BatchPath, th Thresholds) Check {
	limit := th.LateP99Limit(b.Delay)
	c := Check{Name: CheckSocketWait, Subject: "pdcp " + b.Direction, Value: inMs(b.WaitMax), Threshold: inMs(limit), Unit: UnitMs}
	if b.Seconds == 0 {
		c.OK, c.Skipped, c.Detail = true, true, "no second with traffic through the receiving gateway's socket"
		return c
	}
	if c.OK = b.WaitMax <= limit; c.OK {
		c.Detail = fmt.Sprintf("the bytes read waited %.3f ms in the receiving gateway's socket in the worst of %d seconds (%.3f ms over the run)",
			inMs(b.WaitMax), b.Seconds, inMs(b.WaitMean))
	} else {
		c.Detail = fmt.Sprintf("in the worst of %d seconds the bytes read had waited %.3f ms in the receiving gateway's socket (%.3f ms over the run), beyond %.3f ms (%s): the receiving proxy did not keep up (the host was busy or the rate beyond it), and PDCP got those PDUs that much later than the links released them",
			b.Seconds, inMs(b.WaitMax), inMs(b.WaitMean), inMs(limit), lateRule(b.Delay, limit, th))
	}
	return c
}

func stealCheck(m Measurements, th Thresholds) Check {
	c := Check{Name: CheckSteal, Subject: "host", Value: 100 * m.HostSteal, Threshold: 100 * th.Steal, Unit: UnitPercent}
	if !m.HostStealKnown {
		c.OK, c.Skipped, c.Value = true, true, 0
		c.Detail = "steal time not known"
		return c
	}
	c.OK = m.HostSteal <= th.Steal
	c.Detail = fmt.Sprintf("the hypervisor took %.3g %% of the CPUs' time", 100*m.HostSteal)
	if !c.OK {
		c.Detail += " from this machine (emu doctor's \"VM halt polling\" says whether idle vCPUs poll before they halt, which cuts it)"
	}
	return c
}

func softirqCheck(m Measurements, th Thresholds) Check {
	c := Check{Name: CheckSoftirq, Subject: "host", Value: inMs(m.SoftirqMeanWait), Threshold: inMs(th.SoftirqWait), Unit: UnitMs}
	if !m.SoftirqKnown {
		c.OK, c.Skipped, c.Value = true, true, 0
		c.Detail = "softirq threads' wait not known"
		return c
	}
	c.OK = m.SoftirqMeanWait <= th.SoftirqWait
	c.Detail = fmt.Sprintf("deferred packet processing (ksoftirqd) waited %.3f ms per turn", inMs(m.SoftirqMeanWait))
	if !c.OK {
		c.Detail += ": the CPUs were oversubscribed, deferred packet processing waited"
	}
	return c
}
