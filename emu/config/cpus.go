package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The real-time threads of a run (delay lines, NFQUEUE proxies, and the Go
// runtime's monitor, which emu makes real-time beside them) preempt the
// normal tasks on whatever CPU they wake on, even with another CPU idle.
// The batch path's loops are normal goroutines, and at Gbit/s rates they
// waited for a CPU most of a run (docs/design.md); run.rt_cpus keeps those
// threads on CPUs of their own. It is a CPU list as the kernel writes one
// (cpuset(7)): 1, 0,2 or 2-3.

// validateRTCPUs refuses run.rt_cpus beside the NFQUEUE proxies: their
// real-time threads join the delay lines on the CPUs named, and the
// default job so set (2 CPUs, run.rt_cpus=1) had a delay line stall for
// 6.6 s and a trace player for 6.0 s. It was measured on the batch path
// only (docs/design.md); which CPUs the host has is the run's to check.
func (c *Config) validateRTCPUs(bad func(key, format string, args ...any)) {
	if len(c.RTCPUs) > 0 && c.DC.Enabled && c.DC.Datapath != DatapathBatch {
		bad("run.rt_cpus", "needs dc.datapath=batch: with the NFQUEUE proxies on the same CPUs a delay line stalled for seconds")
	}
}

// maxCPU is the highest CPU number a list may name (the kernel's CPU
// masks as golang.org/x/sys/unix holds them: 1024 CPUs).
const maxCPU = 1023

// ParseCPUs reads a CPU list ("none" or "" for none) into sorted,
// distinct CPU numbers.
func ParseCPUs(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return nil, nil
	}
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := cpuNumber(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = cpuNumber(hi); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("CPU range %q runs backwards", part)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

func cpuNumber(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > maxCPU {
		return 0, fmt.Errorf("%q is not a CPU number (0-%d); want a list such as 1, 0,2 or 2-3", s, maxCPU)
	}
	return n, nil
}

// FormatCPUs writes cpus as a CPU list, runs as ranges; none as "none".
func FormatCPUs(cpus []int) string {
	if len(cpus) == 0 {
		return "none"
	}
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", cpus[i], cpus[j])
		} else {
			fmt.Fprintf(&b, "%d", cpus[i])
		}
		i = j + 1
	}
	return b.String()
}
