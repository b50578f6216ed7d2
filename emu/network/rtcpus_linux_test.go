package network

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/internal/rtsched"
	"github.com/dc-emu/emu/internal/emutest"
)

// TestRTCPUsHoldTheDelayLines: with run.rt_cpus, every delay line's
// thread and the runtime's monitor run on the CPU named, for the
// emulation's life; after Close the monitor is back on the process's
// CPUs. A CPU the process may not use is refused, naming the key.
func TestRTCPUsHoldTheDelayLines(t *testing.T) {
	all, last := emutest.SpareCPU(t)
	var want unix.CPUSet
	want.Set(last)
	em := startEmulation(t, "dc.enabled=false", "flows.0.path=link1", "link.delay=5ms", fmt.Sprintf("run.rt_cpus=%d", last))
	mask := func(tid int) unix.CPUSet {
		var m unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	lines := 0
	for _, d := range em.Dirs() {
		if d.Loop == nil {
			continue
		}
		lines++
		if m := mask(d.Loop.TID()); m != want {
			t.Errorf("%s: delay line's thread on %d CPUs, want CPU %d alone", d.Name, m.Count(), last)
		}
	}
	sysmon := rtsched.Snapshot().Sysmon
	if lines != 4 || sysmon == 0 {
		t.Fatalf("%d delay lines, sysmon %d: want 4 and a real-time sysmon", lines, sysmon)
	}
	if m := mask(sysmon); m != want {
		t.Errorf("sysmon on %d CPUs, want CPU %d alone", m.Count(), last)
	}
	em.Close()
	if m := mask(sysmon); m != all {
		t.Errorf("after Close sysmon is on %d CPUs, want the process's %d", m.Count(), all.Count())
	}
	absent := -1
	for c := range 1024 {
		if !all.IsSet(c) {
			absent = c
			break
		}
	}
	sets, err := config.ParseSettings([]string{"link.trace=none", "dc.enabled=false", "flows.0.path=link1", fmt.Sprintf("run.rt_cpus=%d", absent)})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Resolve("throughput", sets)
	if err != nil {
		t.Fatal(err)
	}
	if em, err := Start(context.Background(), cfg, Options{}); err == nil {
		em.Close()
		t.Errorf("run.rt_cpus=%d, a CPU the process may not use, started", absent)
	} else if !strings.Contains(err.Error(), "run.rt_cpus") {
		t.Errorf("run.rt_cpus=%d: %v, want an error naming the key", absent, err)
	}
}
