// Package fidelity decides whether a run's emulation kept up with what it
// was asked to emulate. A run whose delay line released packets late, whose
// trace player changed a link's rate or delay late, whose rate limiter
// delivered less than its configured rate, whose packet
// threads waited for a CPU, whose sender was bound by its own CPU, or whose
// virtual machine lost time to its hypervisor produces plausible numbers
// that are wrong; the verdict says so beside them.
//
// Stages: the run fills Measurements (plain data: delay lines' release
// lateness, trace players' lateness, rate limiters' saturated rate, packet threads' and endpoint
// processes' CPU and run-queue wait, the kernel's softirq threads' wait,
// host steal time); Evaluate compares them with Thresholds (Defaults,
// measured on a 2-core VM; see thresholds.go) and returns a Fidelity: a
// status (ok or degraded) and one Check per figure with its value,
// threshold, unit, verdict and a one-line detail. Fidelity marshals to
// summary.json's "fidelity" object and WriteText renders it for the
// terminal summary.
//
// The package is pure: it measures nothing, reads no kernel state and
// imports no emu package; the run collects the figures (emu/linkstats,
// emu/internal/procstat, emu/delayline) and maps configuration keys to
// Thresholds.
package fidelity
