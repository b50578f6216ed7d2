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
// directories are per run), both end ok with an emulation that kept up, and
// each measures what the same run (same seed) measures alone, within 10 %,
// best of up to three rounds (a pair with a degraded run is run once more;
// the test skips, saying so, when a run was still degraded, or the
// goodputs differ, on a machine the watch did not find quiet)
// (2 × 5 Mbit/s, 10 ms ± 10 % each way, a 3 MB download: light enough
// that two at once fit on the 2-core VMs, where two downloads over 2 ×
// 20 Mbit/s at once already come back 20–25 % slower than alone — 25.6
// and 25.2 against 33.8 and 35.1 Mbit/s, the servers waiting for a CPU
// 89 % of their runnable time, which the fidelity verdict rightly calls
// degraded: that is the machine's limit, emu calibrate --jobs measures it.
// Queues of 500 ms, which slow start does not overflow: with 100 ms ones
// a run either lost a few packets in slow start or none, 8.2 or 9.1
// Mbit/s with one seed, alone or beside; with 500 ms, 9.17–9.24 alone and
// 8.79–9.13 beside here).
func TestRunsSideBySide(t *testing.T) {
	emutest.RequireRoot(t)
	if testing.Short() {
		t.Skip("runs four emulations (about 15 s)")
	}
	// The watch covers every round: the best goodputs may come from any
	// of them.
	h := emutest.Exclusive(t)
	bin := emuBinary(t)
	dir := t.TempDir()
	cfgs := [2]struct{ seed uint64 }{{11}, {12}}
	var ids []string
	var mu sync.Mutex
	run := func(name string, i int) (*results.Summary, error) {
		// Loose bounds (10× the defaults): two emulations at once
		// on 2 cores release 1 % of packets 0.5–3.6 ms late, their loops
		// wait 20–40 µs per wake-up and up to 6 % of the run, and their
		// endpoints 75–89 % of the time they are runnable, which the
		// defaults can call degraded; this test is about runs leaking into
		// each other, not about the machine's limit.
		cfg := testConfig(t, "link.rate=5mbit", "flow.size=3MB", "link.queue=500ms",
			"fidelity.late_floor=5ms", "fidelity.late_ceil=5ms", "fidelity.late_max=150ms",
			"fidelity.thread_mean_wait=200µs", "fidelity.thread_wait=50%", "fidelity.endpoint_wait=98%")
		cfg.Seed = cfgs[i].seed
		id := runstate.NewRunID()
		mu.Lock()
		ids = append(ids, id)
		mu.Unlock()
		return Run(context.Background(), cfg, RunOptions{Out: filepath.Join(dir, name, fmt.Sprint(i)), Binary: bin, ID: id})
	}
	t.Cleanup(func() {
		for _, id := range ids {
			noLeftovers(t, id)
		}
	})
	// phase runs both configurations, one after the other or at once,
	// and once more when a run came back degraded, as emu sweep does: a
	// stray 50–100 ms delay-line stall comes in about one run in ten on
	// the 2-core VM even alone (docs/sweeps.md), and one such run says
	// nothing about running side by side.
	phase := func(name string, atOnce bool) (sums [2]*results.Summary, errs [2]error) {
		for try := range 2 {
			var wg sync.WaitGroup
			for i := range sums {
				if !atOnce {
					sums[i], errs[i] = run(fmt.Sprintf("%s-%d", name, try), i)
					continue
				}
				wg.Go(func() { sums[i], errs[i] = run(fmt.Sprintf("%s-%d", name, try), i) })
			}
			wg.Wait()
			again := false
			for i, s := range sums {
				if errs[i] == nil && s.Fidelity != nil && s.Fidelity.Status != fid.OK {
					t.Logf("%s, attempt %d: run %d degraded: %+v", name, try+1, i, s.Fidelity.Failed())
					again = true
				}
			}
			if !again {
				break
			}
		}
		return sums, errs
	}
	// Goodput is compared as the best of up to three rounds of both
	// phases: a slow-start loss or a stall makes one 5 MB download 20 %
	// slower now and then, alone as well as beside (a clean-clone CI run
	// measured 28.06 Mbit/s alone against 32.64 beside, every run ok),
	// while a run that really shares something with the other (a rate
	// limiter, a queue, a port) is slower in every round.
	var bestAlone, bestTogether [2]float64
	var together [2]*results.Summary
	for round := range 3 {
		alone, errs := phase(fmt.Sprintf("alone-r%d", round), false)
		for i, err := range errs {
			if err != nil {
				t.Fatalf("run %d alone: %v", i, err)
			}
		}
		together, errs = phase(fmt.Sprintf("together-r%d", round), true)
		for i := range together {
			if errs[i] != nil {
				t.Fatalf("run %d beside the other: %v", i, errs[i])
			}
			a, b := alone[i], together[i]
			if b.Status != results.StatusOK {
				t.Errorf("run %d beside the other: status %s: %s", i, b.Status, b.Error)
			}
			if !b.Flows[0].Complete || b.Flows[0].Bytes != a.Flows[0].Bytes {
				t.Errorf("seed %d: %d bytes (complete %t) beside the other, %d alone", cfgs[i].seed, b.Flows[0].Bytes, b.Flows[0].Complete, a.Flows[0].Bytes)
			}
			for _, s := range []*results.Summary{a, b} {
				if s.Fidelity == nil || s.Fidelity.Status == fid.OK {
					continue
				}
				// A run that measured the hypervisor taking more than its
				// limit, and nothing else wrong, holds the host's evidence
				// itself: /proc/stat over the whole test may average it
				// away (a fresh-clone CI run: 2.14 % and 2.77 % steal in a
				// run's two attempts, the test's watch under 2 %).
				if stolen(s.Fidelity) {
					t.Skipf("%srun %s degraded twice, by the hypervisor's steal alone: %+v", emutest.BusyHost, s.Run, s.Fidelity.Failed())
				}
				// Others' work can degrade a run as well as the other run can;
				// then degraded is the right verdict, and nothing is learnt.
				h.Errorf(t, "run %s, degraded twice: fidelity %s: %+v", s.Run, s.Fidelity.Status, s.Fidelity.Failed())
			}
			ga, gb := a.Flows[0].GoodputMbps, b.Flows[0].GoodputMbps
			t.Logf("round %d, seed %d: goodput %.2f Mbit/s alone, %.2f beside the other", round+1, cfgs[i].seed, ga, gb)
			bestAlone[i] = max(bestAlone[i], ga)
			bestTogether[i] = max(bestTogether[i], gb)
		}
		if t.Failed() {
			return
		}
		if within(bestTogether[0], bestAlone[0], 0.1) && within(bestTogether[1], bestAlone[1], 0.1) {
			break
		}
		// Another round is for a quiet machine's chance loss or stall; on
		// a busy one it would only measure the load again.
		h.SkipIfHostTook(t, fmt.Sprintf("round %d: best goodputs %.2f and %.2f Mbit/s beside the other, %.2f and %.2f alone (want within 10 %%)",
			round+1, bestTogether[0], bestTogether[1], bestAlone[0], bestAlone[1]))
	}
	for i := range bestAlone {
		ga, gb := bestAlone[i], bestTogether[i]
		if within(gb, ga, 0.1) {
			continue
		}
		// A clean-clone CI run, with other packages' tests beside it,
		// measured 31.41 Mbit/s beside against 35.74 alone, both
		// emulations ok: the endpoints, not the emulation, got less.
		h.Errorf(t, "seed %d: best of three rounds %.2f Mbit/s beside the other, %.2f alone (want within 10 %%)", cfgs[i].seed, gb, ga)
	}
	if together[0].Config["run.seed"] == together[1].Config["run.seed"] {
		t.Error("the two runs had one seed")
	}
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
