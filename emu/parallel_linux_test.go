package emu

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	fid "github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runstate"
	"github.com/dc-emu/emu/internal/emutest"
)

// TestRunsSideBySide runs two emulations of the same configuration at once
// in one process, as emu sweep --jobs 2 does: nothing of one run may leak
// into the other (namespaces, queue numbers, ports, state files, scratch
// directories are per run): both end ok, complete, with their own seeds,
// each at a goodput of its own links' size, and leave nothing behind.
// That each measures what the same run measures alone, and that the
// emulations kept up, is TestFidelityRunsSideBySide's.
func TestRunsSideBySide(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	together := sideBySide(t, "together", true)
	for i, s := range together {
		if s.Status != results.StatusOK {
			t.Errorf("run %d beside the other: status %s: %s", i, s.Status, s.Error)
		}
		f := s.Flows[0]
		if !f.Complete || f.Bytes != 3e6 {
			t.Errorf("seed %d: %d bytes (complete %t) beside the other, want 3 MB", sideBySideSeeds[i], f.Bytes, f.Complete)
		}
		// 2 × 5 Mbit/s: a run that shared the other's links would still
		// get half; a tenth is far below either.
		if f.GoodputMbps < 1 {
			t.Errorf("seed %d: goodput %.2f Mbit/s beside the other over 2 × 5 Mbit/s, want well over 1", sideBySideSeeds[i], f.GoodputMbps)
		}
	}
	if together[0].Config["run.seed"] == together[1].Config["run.seed"] {
		t.Error("the two runs had one seed")
	}
}

// TestFidelityRunsSideBySide: each of TestRunsSideBySide's runs measures
// beside the other what the same run (same seed) measures alone, within
// 10 %, and every run's emulation kept up (light enough that two at once
// fit on the 2-core VMs, where two downloads over 2 × 20 Mbit/s at once
// already come back 20–25 % slower than alone — 25.6 and 25.2 against
// 33.8 and 35.1 Mbit/s, the servers waiting for a CPU 89 % of their
// runnable time, which the fidelity verdict rightly calls degraded: that
// is the machine's limit, emu calibrate --jobs measures it). A slow-start
// loss or a stray 50–100 ms delay-line stall (about one run in ten on the
// 2-core VM even alone, docs/sweeps.md) makes one download 20 % slower,
// or one run degraded, now and then, alone as well as beside: the tier's
// rerun absorbs it, while a run that really shares something with the
// other (a rate limiter, a queue, a port) is slower every time.
func TestFidelityRunsSideBySide(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	alone := sideBySide(t, "alone", false)
	together := sideBySide(t, "together", true)
	for i := range together {
		a, b := alone[i], together[i]
		for _, s := range []*results.Summary{a, b} {
			if s.Fidelity == nil || s.Fidelity.Status == fid.OK {
				continue
			}
			// A run that measured the hypervisor taking more than its
			// limit, and nothing else wrong, holds the host's evidence
			// itself: /proc/stat over the whole test may average it
			// away (a fresh-clone CI run: 2.14 % and 2.77 % steal in a
			// run, the test's watch under 2 %).
			if stolen(s.Fidelity) {
				t.Skipf("%srun %s degraded by the hypervisor's steal alone: %+v", emutest.BusyHost, s.Run, s.Fidelity.Failed())
			}
			// Others' work can degrade a run as well as the other run can;
			// then degraded is the right verdict, and nothing is learnt.
			h.Errorf(t, "run %s degraded: fidelity %s: %+v", s.Run, s.Fidelity.Status, s.Fidelity.Failed())
		}
		ga, gb := a.Flows[0].GoodputMbps, b.Flows[0].GoodputMbps
		t.Logf("seed %d: goodput %.2f Mbit/s alone, %.2f beside the other", sideBySideSeeds[i], ga, gb)
		// A clean-clone CI run, with other packages' tests beside it,
		// measured 31.41 Mbit/s beside against 35.74 alone, both
		// emulations ok: the endpoints, not the emulation, got less.
		if !within(gb, ga, 0.1) {
			h.Errorf(t, "seed %d: %.2f Mbit/s beside the other, %.2f alone (want within 10 %%)", sideBySideSeeds[i], gb, ga)
		}
	}
}

// sideBySideSeeds are the seeds of the two configurations.
var sideBySideSeeds = [2]uint64{11, 12}

// sideBySide runs the two configurations of TestRunsSideBySide, one after
// the other or at once, and returns their summaries; a run that fails
// fails the test. Each is 2 × 5 Mbit/s, 10 ms ± 10 % each way, a 3 MB
// download, with queues of 500 ms, which slow start does not overflow:
// with 100 ms ones a run either lost a few packets in slow start or none,
// 8.2 or 9.1 Mbit/s with one seed, alone or beside; with 500 ms, 9.17–9.24
// alone and 8.79–9.13 beside here.
func sideBySide(t *testing.T, name string, atOnce bool) (sums [2]*results.Summary) {
	t.Helper()
	bin := emuBinary(t)
	dir := t.TempDir()
	var ids []string
	var mu sync.Mutex
	t.Cleanup(func() {
		for _, id := range ids {
			noLeftovers(t, id)
		}
	})
	run := func(i int) (*results.Summary, error) {
		// Loose bounds (10× the defaults): two emulations at once
		// on 2 cores release 1 % of packets 0.5–3.6 ms late, their loops
		// wait 20–40 µs per wake-up and up to 6 % of the run, and their
		// endpoints 75–89 % of the time they are runnable, which the
		// defaults can call degraded; these tests are about runs leaking
		// into each other, not about the machine's limit.
		cfg := testConfig(t, "link.rate=5mbit", "flow.size=3MB", "link.queue=500ms",
			"fidelity.late_floor=5ms", "fidelity.late_ceil=5ms", "fidelity.late_max=150ms",
			"fidelity.thread_mean_wait=200µs", "fidelity.thread_wait=50%", "fidelity.endpoint_wait=98%")
		cfg.Seed = sideBySideSeeds[i]
		id := runstate.NewRunID()
		mu.Lock()
		ids = append(ids, id)
		mu.Unlock()
		return Run(context.Background(), cfg, RunOptions{Out: filepath.Join(dir, name, fmt.Sprint(i)), Binary: bin, ID: id})
	}
	var errs [2]error
	var wg sync.WaitGroup
	for i := range sums {
		if !atOnce {
			sums[i], errs[i] = run(i)
			continue
		}
		wg.Go(func() { sums[i], errs[i] = run(i) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("run %d %s: %v", i, name, err)
		}
	}
	return sums
}

// stolen says whether the host's steal is all that degraded a run.
func stolen(f *fid.Fidelity) bool {
	failed := f.Failed()
	for _, c := range failed {
		if c.Name != fid.CheckSteal {
			return false
		}
	}
	return len(failed) > 0
}
