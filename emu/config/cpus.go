package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// run.rt_cpus keeps the real-time threads of a run (the delay lines and
// the Go runtime's monitor, which emu makes real-time beside them) on CPUs
// of their own: they preempt the normal tasks on whatever CPU they wake
// on, even with another CPU idle, and at Gbit/s rates the PDCP proxies'
// loops, real-time only while light, waited for a CPU most of a run
// (docs/design.md). It is a CPU list as the kernel writes one (cpuset(7)):
// 1, 0,2 or 2-3; which CPUs the host has is the run's to check.

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
