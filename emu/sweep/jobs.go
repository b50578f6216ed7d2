package sweep

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Jobs says how many runs Execute does at once: N, or Auto.
type Jobs struct {
	// N runs at once when not Auto; 0 means 1.
	N int
	// Auto picks N from the machine: runs run alone until one ends ok
	// with an emulation that kept up, and its process tree's CPU says how
	// much of a core one run of the plan needs; N is how many such runs
	// fit in AutoBudget of the cores. Runs that keep coming back degraded
	// with k at once (StrayDegraded) lower N below k for the rest of the
	// sweep (it is never raised again).
	Auto bool
}

// AutoBudget is the share of the machine's cores that --jobs auto lets
// the runs use together. The rest is headroom: for the packets the kernel
// forwards outside any run's processes (softirq), for the other processes
// of the machine, and so that a packet thread waking up finds a CPU. On the
// 2-core development VM one batch-preset run (2 × 20 Mbit/s, 20 MB) used
// 0.34 (TCP) to 0.65 (quic-go, large buffer) of a core, 0.53 on average
// over the preset, and its process tree accounted for all but 5–10 % of
// the host's busy time over the run: auto picks 2 or 3 after a quic-go
// run.
const AutoBudget = 0.9

// MaxAutoJobs caps --jobs auto however little a run uses, per core:
// set-up (namespaces, links, processes) and the runs' memory grow with N.
const MaxAutoJobs = 4

// ParseJobs parses --jobs: a positive number, or "auto".
func ParseJobs(s string) (Jobs, error) {
	s = strings.TrimSpace(s)
	if s == "auto" {
		return Jobs{Auto: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return Jobs{}, fmt.Errorf("--jobs %q: want a number of runs at once (1 or more) or auto", s)
	}
	return Jobs{N: n}, nil
}

func (j Jobs) String() string {
	if j.Auto {
		return "auto"
	}
	return strconv.Itoa(max(j.N, 1))
}

// governor decides how many runs may run at once. It is the whole of
// --jobs's logic, fed what happened (a calibration run's CPU, a degraded
// run) and asked for the limit; it measures nothing itself.
type governor struct {
	auto  bool
	cores int
	limit int
	// ceiling is the most runs at once auto may allow: below every
	// concurrency at which a run came back degraded.
	ceiling    int
	calibrated bool
	perRun     float64 // cores one run used, from the calibration
	// runs and bad count the runs judged, and the degraded among them, by
	// the concurrency they ran at.
	runs, bad map[int]int
}

func newGovernor(j Jobs, cores int) *governor {
	cores = max(cores, 1)
	g := &governor{auto: j.Auto, cores: cores, limit: max(j.N, 1)}
	if j.Auto {
		// One run alone until the calibration says how much CPU it uses.
		g.limit, g.ceiling = 1, MaxAutoJobs*cores
	}
	return g
}

// Limit is how many runs may run at once now.
func (g *governor) Limit() int { return g.limit }

// Calibrating reports whether auto still waits for its calibration run.
func (g *governor) Calibrating() bool { return g.auto && !g.calibrated }

// Calibrate takes the CPU time the process tree used during a run that
// ran alone, and its wall time, and sets auto's limit: as many such runs
// as fit in AutoBudget of the cores. It returns a line saying what it
// decided ("" when there is nothing to decide: not auto, or already
// calibrated).
func (g *governor) Calibrate(cpu, wall time.Duration) string {
	if !g.Calibrating() || wall <= 0 {
		return ""
	}
	g.calibrated = true
	g.perRun = cpu.Seconds() / wall.Seconds()
	n := g.ceiling
	if g.perRun > 0 {
		n = int(AutoBudget * float64(g.cores) / g.perRun)
	}
	g.limit = min(max(n, 1), g.ceiling)
	return fmt.Sprintf("jobs auto: one run used %.2f of a core (%.1f s CPU in %.1f s); %s × %.0f %% → %s at once",
		g.perRun, cpu.Seconds(), wall.Seconds(), plural(g.cores, "core"), 100*AutoBudget, plural(g.limit, "run"))
}

// LoadWindow is how much run time (summed over the runs at once) passes
// between auto's later CPU readings.
const LoadWindow = 60 * time.Second

// Load takes what the process tree used while runs ran side by side: cpu
// over runTime, the runs' wall times summed, since the calibration. One run of this plan may use
// more than the calibration run did (a plan mixes light and heavy points),
// so when that many no longer fit in AutoBudget of the cores, auto runs
// fewer at once from now on; it never runs more. It returns a line saying
// what changed ("" when nothing did).
func (g *governor) Load(cpu, runTime time.Duration) string {
	if !g.auto || !g.calibrated || runTime <= 0 {
		return ""
	}
	perRun := cpu.Seconds() / runTime.Seconds()
	n := max(int(AutoBudget*float64(g.cores)/perRun), 1)
	if n >= g.limit {
		return ""
	}
	g.limit, g.ceiling = n, n
	return fmt.Sprintf("jobs auto: the runs used %.2f of a core each over %s of run time; %s at once from now on",
		perRun, runTime.Round(time.Second), plural(n, "run"))
}

// StrayDegraded is how many of the runs made at one concurrency may come
// back degraded before auto takes it for overload: more than one, and more
// than one in StrayEvery. A delay-line stall of 50–100 ms that the
// fidelity checks cannot tie to the load comes on this 2-core VM in about
// one run in ten even alone (11 of 101 attempts of the batch preset at
// --jobs 1, the same with the code before rtsched); one such run must not
// halve the sweep's speed for good. Overload degrades most runs, so it
// still lowers the limit within a few runs.
const (
	StrayDegraded = 1
	StrayEvery    = 5
)

// Finished takes a run that ended with its emulation judged, while up to
// concurrency runs (itself included) ran at once, and whether it came back
// degraded. When too many runs at that concurrency were degraded
// (StrayDegraded), auto allows fewer from now on; a fixed --jobs stays. It
// returns a line saying what changed ("" when nothing did).
func (g *governor) Finished(concurrency int, degraded bool) string {
	if !g.auto || concurrency <= 1 {
		return ""
	}
	if g.runs == nil {
		g.runs, g.bad = map[int]int{}, map[int]int{}
	}
	g.runs[concurrency]++
	if !degraded {
		return ""
	}
	g.bad[concurrency]++
	if b := g.bad[concurrency]; b <= StrayDegraded || b*StrayEvery <= g.runs[concurrency] {
		return ""
	}
	g.ceiling = min(g.ceiling, concurrency-1)
	if g.limit <= g.ceiling {
		return ""
	}
	g.limit = g.ceiling
	return fmt.Sprintf("jobs auto: %d of %d runs were degraded with %d at once; %s at once from now on",
		g.bad[concurrency], g.runs[concurrency], concurrency, plural(g.limit, "run"))
}
