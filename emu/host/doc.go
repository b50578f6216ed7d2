// Package host reports facts about the machine emu runs on: what the kernel
// can do (emu doctor's probes, each in a scratch namespace so the host's own
// networking is never touched), its preemption model, and the versions of
// the software that produced a result (this binary, Go, the kernel,
// quic-go, Debian's ngtcp2 examples), recorded in every run's results.
package host
