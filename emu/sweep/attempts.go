package sweep

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dc-emu/emu/emu/results"
)

// DefaultReruns is how many times Execute runs a degraded run again when
// Options.Reruns is nil: once, the rule. On the 2-core VM 6–10 %
// of runs are degraded by scheduling stalls from below emu, so about 1 %
// stay degraded with one rerun; --reruns 2 or 3 makes that rare.
const DefaultReruns = 1

// Attempts of a run. runs/<id> holds the latest attempt; every earlier one
// was degraded and is kept in the degraded directory: the first as
// degraded/<id> (the layout of one rerun, so directories of that time
// read the same), attempt k ≥ 2 as degraded/<id>.<k>. Run ids hold no dot,
// so the names cannot collide. How many attempts a run has had is read
// from the disk, never stored: a resumed sweep continues from them,
// whatever --reruns it has.

// keptDir is where attempt k (from 1) of run id is kept once a later
// attempt replaced it.
func keptDir(dir, id string, k int) string {
	return string(results.SweepDir(dir).Degraded(id, k))
}

// keptAttempts counts the degraded attempts of run r that dir keeps: 1, 2,
// … in a row, each a degraded ok run of r with the seed and configuration
// of plan p (what an earlier plan left does not count).
func keptAttempts(dir string, p *results.Plan, r results.Run) int {
	k := 0
	for {
		sum, ok := okRun(keptDir(dir, r.ID, k+1), p, r)
		if !ok {
			return k
		}
		if _, bad := degraded(sum); !bad {
			return k
		}
		k++
	}
}

// runState is what a sweep directory holds of one run.
type runState struct {
	// ok: runs/<id> holds the run with status ok; bad: its emulation was
	// degraded.
	ok, bad bool
	// kept is the number of degraded attempts kept before it.
	kept int
}

func stateOf(dir string, p *results.Plan, r results.Run) runState {
	st := runState{kept: keptAttempts(dir, p, r)}
	sum, ok := okRun(string(results.SweepDir(dir).Run(r.ID)), p, r)
	if ok {
		_, st.bad = degraded(sum)
		st.ok = true
	}
	return st
}

// final reports whether the run is done for good with reruns allowed: it
// ended ok and kept up, or it was degraded in 1 + reruns attempts.
func (s runState) final(reruns int) bool {
	return s.ok && (!s.bad || s.kept >= reruns)
}

// completed reports whether dir holds run r done for good with reruns
// allowed (runState.final).
func completed(dir string, p *results.Plan, r results.Run, reruns int) bool {
	return stateOf(dir, p, r).final(reruns)
}

// keepDegraded moves run id's directory, its attempt k, to its place in
// the degraded directory (keptDir), replacing what an earlier plan left
// there, so the run can be done again.
func keepDegraded(dir, id string, k int) error {
	to := keptDir(dir, id, k)
	if err := os.RemoveAll(to); err != nil {
		return fmt.Errorf("sweep: keep degraded attempt %d of run %s: %w", k, id, err)
	}
	if err := results.MkdirAll(filepath.Dir(to)); err != nil {
		return fmt.Errorf("sweep: keep degraded attempt %d of run %s: %w", k, id, err)
	}
	if err := os.Rename(string(results.SweepDir(dir).Run(id)), to); err != nil {
		return fmt.Errorf("sweep: keep degraded attempt %d of run %s: %w", k, id, err)
	}
	return nil
}

// restoreKept makes kept attempt k of run id the run's result again:
// runs/<id> (an attempt after it that failed or was interrupted) is
// replaced by it. A sweep resumed with fewer reruns than the one that
// made k degraded attempts takes the last of them as final.
func restoreKept(dir, id string, k int) error {
	runDir := string(results.SweepDir(dir).Run(id))
	if err := os.RemoveAll(runDir); err != nil {
		return fmt.Errorf("sweep: restore degraded attempt %d of run %s: %w", k, id, err)
	}
	if err := results.MkdirAll(filepath.Dir(runDir)); err != nil {
		return fmt.Errorf("sweep: restore degraded attempt %d of run %s: %w", k, id, err)
	}
	if err := os.Rename(keptDir(dir, id, k), runDir); err != nil {
		return fmt.Errorf("sweep: restore degraded attempt %d of run %s: %w", k, id, err)
	}
	return nil
}
