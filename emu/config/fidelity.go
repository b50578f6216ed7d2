package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dc-emu/emu/emu/fidelity"

	"github.com/dc-emu/emu/emu/units"
)

// fidelityParams are the fidelity.* keys: the thresholds of every run's
// fidelity verdict (package fidelity; the measured figures behind each
// default are in fidelity/thresholds.go). Defaults: fidelity.Defaults.
func fidelityParams() []Param {
	th := func(c *Config) *fidelity.Thresholds { return &c.Fidelity }
	return []Param{
		fractionParam("fidelity.late_frac", "a delay line's p99 release lateness is degraded above this fraction of its delay (clamped to late_floor..late_ceil)",
			func(c *Config) *float64 { return &th(c).LateFrac }),
		durationParam("fidelity.late_floor", "lowest p99 release-lateness limit of a delay line",
			func(c *Config) *time.Duration { return &th(c).LateFloor }),
		durationParam("fidelity.late_ceil", "highest p99 release-lateness limit of a delay line",
			func(c *Config) *time.Duration { return &th(c).LateCeil }),
		durationParam("fidelity.late_max", "longest release lateness (stall) of a delay line",
			func(c *Config) *time.Duration { return &th(c).LateMax }),
		durationParam("fidelity.player_late", "p99 lateness of a trace player's changes (a link's rate, or its delay and loss)",
			func(c *Config) *time.Duration { return &th(c).PlayerLate }),
		fractionParam("fidelity.rate_tolerance", "a saturated rate limiter is degraded outside 1 ± this of its configured rate",
			func(c *Config) *float64 { return &th(c).RateTolerance }),
		durationParam("fidelity.min_saturated", "how long a rate limiter must be provably saturated for its rate to be judged",
			func(c *Config) *time.Duration { return &th(c).MinSaturated }),
		fractionParam("fidelity.thread_wait", "an emulator packet thread's run-queue wait, as a fraction of the run",
			func(c *Config) *float64 { return &th(c).ThreadWait }),
		durationParam("fidelity.thread_mean_wait", "an emulator packet thread's run-queue wait per timeslice",
			func(c *Config) *time.Duration { return &th(c).ThreadMeanWait }),
		floatParam("fidelity.thread_cpu", "cores", "an emulator packet thread's CPU",
			func(c *Config) *float64 { return &th(c).ThreadCPU }),
		floatParam("fidelity.endpoint_cpu", "cores", "an endpoint process at or above this CPU over its flow is CPU-bound: the host limits the flow",
			func(c *Config) *float64 { return &th(c).EndpointCPU }),
		fractionParam("fidelity.endpoint_wait", "share of an endpoint process's runnable time spent waiting for a CPU (its threads' summed): above it, the host limits the flow",
			func(c *Config) *float64 { return &th(c).EndpointWait }),
		durationParam("fidelity.softirq_wait", "the kernel's softirq threads' mean run-queue wait per timeslice",
			func(c *Config) *time.Duration { return &th(c).SoftirqWait }),
		fractionParam("fidelity.steal", "time the hypervisor stole from the host's CPUs over the run",
			func(c *Config) *float64 { return &th(c).Steal }),
	}
}

// IsThreshold reports whether key is a fidelity threshold (fidelity.*). A
// threshold judges a run's emulation once it has ended and changes nothing
// the run emulates, so a sweep resumes across a change of one: the runs
// already done keep the verdicts they were given (each check in their
// summary.json carries its threshold).
func IsThreshold(key string) bool { return strings.HasPrefix(key, "fidelity.") }

// validateFidelity checks the thresholds: a zero would silently take the
// default in package fidelity, so every threshold must be positive.
func (c *Config) validateFidelity() []error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	th := c.Fidelity
	for _, d := range []struct {
		key string
		v   time.Duration
	}{
		{"fidelity.late_floor", th.LateFloor}, {"fidelity.late_ceil", th.LateCeil}, {"fidelity.late_max", th.LateMax}, {"fidelity.player_late", th.PlayerLate},
		{"fidelity.min_saturated", th.MinSaturated}, {"fidelity.thread_mean_wait", th.ThreadMeanWait},
		{"fidelity.softirq_wait", th.SoftirqWait},
	} {
		if d.v <= 0 {
			bad(d.key, "must be positive (got %v)", d.v)
		}
	}
	if th.LateFloor > th.LateCeil {
		bad("fidelity.late_floor", "%v is above fidelity.late_ceil (%v)", th.LateFloor, th.LateCeil)
	}
	for _, f := range []struct {
		key string
		v   float64
	}{
		{"fidelity.late_frac", th.LateFrac}, {"fidelity.rate_tolerance", th.RateTolerance},
		{"fidelity.thread_wait", th.ThreadWait}, {"fidelity.endpoint_wait", th.EndpointWait}, {"fidelity.steal", th.Steal},
	} {
		if f.v <= 0 {
			bad(f.key, "must be positive (got %s)", units.FormatFraction(f.v))
		}
	}
	if th.RateTolerance >= 1 {
		bad("fidelity.rate_tolerance", "%s would accept a rate limiter that delivers nothing; want below 100%%", units.FormatFraction(th.RateTolerance))
	}
	if !(th.ThreadCPU > 0 && th.ThreadCPU <= 1) {
		bad("fidelity.thread_cpu", "want a share of one core in (0, 1] (got %s)", strconv.FormatFloat(th.ThreadCPU, 'g', -1, 64))
	}
	if !(th.EndpointCPU > 0) {
		bad("fidelity.endpoint_cpu", "must be positive (got %s)", strconv.FormatFloat(th.EndpointCPU, 'g', -1, 64))
	}
	return errs
}
