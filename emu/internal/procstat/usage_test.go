package procstat

import (
	"testing"
	"time"
)

func TestBetweenThread(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := Reading{At: t0, Sched: Sched{OnCPU: time.Second, Wait: 100 * time.Millisecond, Slices: 1000}}
	b := Reading{At: t0.Add(2 * time.Second), Sched: Sched{OnCPU: 2500 * time.Millisecond, Wait: 140 * time.Millisecond, Slices: 1400},
		Stat: Stat{User: time.Hour}} // a thread's Stat is not used for its CPU
	u := Between(a, b)
	want := Usage{Wall: 2 * time.Second, CPU: 0.75, Wait: 0.02, MeanWait: 100 * time.Microsecond, Slices: 400}
	if u != want {
		t.Errorf("got %+v, want %+v", u, want)
	}
}

// TestBetweenKernelShare: the kernel's share of a thread's CPU time comes
// from its stat's user and system ticks.
func TestBetweenKernelShare(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := Reading{At: t0, Stat: Stat{User: time.Second, System: 2 * time.Second}}
	b := Reading{At: t0.Add(2 * time.Second), Stat: Stat{User: 1200 * time.Millisecond, System: 2800 * time.Millisecond}}
	if u := Between(a, b); u.Kernel < 0.7999 || u.Kernel > 0.8001 {
		t.Errorf("200 ms user, 800 ms system: kernel share %v, want 0.8", u.Kernel)
	}
	if u := Between(a, a); u.Kernel != 0 {
		t.Errorf("no tick: kernel share %v, want 0", u.Kernel)
	}
}

func TestBetweenProcess(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := Reading{At: t0, Process: true, Stat: Stat{User: time.Second, System: time.Second}, Sched: Sched{OnCPU: 5 * time.Second, Wait: time.Second, Slices: 10}}
	// A thread ended: the live threads' sum went back, Stat still counts it.
	b := Reading{At: t0.Add(time.Second), Process: true, Stat: Stat{User: 2500 * time.Millisecond, System: 1400 * time.Millisecond}, Sched: Sched{OnCPU: 3 * time.Second, Wait: 500 * time.Millisecond, Slices: 4}}
	u := Between(a, b)
	if want := (Usage{Wall: time.Second, CPU: 1.9}); u.Wall != want.Wall || u.CPU < 1.8999 || u.CPU > 1.9001 || u.Wait != 0 || u.MeanWait != 0 {
		t.Errorf("got %+v, want CPU 1.9 and no wait", u)
	}
}

func TestBetweenSameTime(t *testing.T) {
	r := Reading{At: time.Unix(1, 0), Sched: Sched{OnCPU: 1}}
	if u := Between(r, r); u != (Usage{}) {
		t.Errorf("zero wall: %+v", u)
	}
}

func TestHostBetween(t *testing.T) {
	a := Host{User: 10 * time.Second, Idle: 90 * time.Second, CPUs: 2}
	b := Host{User: 11 * time.Second, System: 500 * time.Millisecond, Idle: 90200 * time.Millisecond, Steal: 300 * time.Millisecond, CPUs: 2}
	u := HostBetween(a, b) // 2 s of CPU time: 1.5 busy, 0.2 idle, 0.3 stolen
	if u.CPUs != 2 || abs(u.Steal-0.15) > 1e-9 || abs(u.Busy-0.9) > 1e-9 {
		t.Errorf("got %+v, want steal 0.15, busy 0.9", u)
	}
	if u := HostBetween(b, b); u.Steal != 0 || u.Busy != 0 {
		t.Errorf("no time: %+v", u)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
