package sweep

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dc-emu/emu/emu/results"
)

// MergeResult says what Merge took from where.
type MergeResult struct {
	Copied  int // run directories copied (or hard-linked) into the output
	Present int // runs the output already held complete
	// Failed runs no input completed; the record of a failed attempt was
	// taken when there was one.
	Failed []string
	// Missing runs no input holds at all.
	Missing []string
	// Duplicates are runs completed in more than one input; the first
	// input's copy was taken (same seed and configuration, so either is a
	// valid measurement of the run).
	Duplicates []string
	// Notes say where the inputs' fidelity thresholds differ: each run
	// keeps the verdict it was given.
	Notes []string
}

// Merge gathers the runs of sweep directories that hold the same plan (the
// shards of one sweep, run on different machines) into out: it checks that
// the plans are identical, writes out's plan.json (as Prepare does) and
// copies each run's directory, with the degraded attempts kept of it,
// from the first input that completed it (ok, preferring an attempt that
// kept up to a degraded one), hard-linking files where the file system
// allows. out may be one of the inputs. The caller then writes the results with Finish.
func Merge(out string, inputs []string, force bool) (*MergeResult, error) {
	if len(inputs) == 0 {
		return nil, errors.New("merge: no sweep directories given")
	}
	plans := make([]*results.Plan, len(inputs))
	var notes []string
	for i, in := range inputs {
		p, err := results.ReadPlan(in)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		plans[i] = p
		if i > 0 {
			if d := PlanDiff(plans[0], p); d != "" {
				return nil, fmt.Errorf("merge: %s and %s hold different sweeps (%s: %s)", inputs[0], in, in, d)
			}
			if d := ThresholdChanges(plans[0], p); d != "" {
				notes = append(notes, fmt.Sprintf("%s judged its runs by other fidelity thresholds than %s (%s); each run keeps its verdict", in, inputs[0], d))
			}
		}
	}
	p := plans[0]
	note, err := Prepare(out, p, force)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if note != "" {
		notes = append(notes, out+": "+note)
	}
	res := &MergeResult{Notes: notes}
	for _, r := range p.Runs {
		have := holds(out, p, r)
		var from string
		best, done := holdsNothing, 0
		for _, in := range inputs {
			if sameDir(in, out) {
				continue
			}
			h := holds(in, p, r)
			if h >= holdsDegraded {
				done++
			}
			if h > best {
				from, best = in, h
			}
		}
		switch {
		case have >= holdsDegraded && have >= best:
			res.Present++
		case best >= holdsDegraded:
			if done > 1 {
				res.Duplicates = append(res.Duplicates, r.ID)
			}
			if err := copyRun(from, out, r.ID); err != nil {
				return nil, err
			}
			res.Copied++
		case best == holdsAttempt || have == holdsAttempt:
			if have < holdsAttempt {
				if err := copyRun(from, out, r.ID); err != nil {
					return nil, err
				}
			}
			res.Failed = append(res.Failed, r.ID)
		default:
			res.Missing = append(res.Missing, r.ID)
		}
	}
	return res, nil
}

// What a sweep directory holds of a run, worst first: Merge takes each
// run from the input that holds the best. A degraded run counts as
// completed (whether it is due another attempt depends on the --reruns
// of the sweep that resumes the merged directory, which counts its
// attempts then).
const (
	holdsNothing  = iota
	holdsAttempt  // a summary with its seed, not ok (or of another configuration)
	holdsDegraded // ok, the emulation degraded
	holdsOK       // ok and kept up
)

func holds(dir string, p *results.Plan, r results.Run) int {
	st := stateOf(dir, p, r)
	switch {
	case st.ok && !st.bad:
		return holdsOK
	case st.ok:
		return holdsDegraded
	case attempted(dir, r):
		return holdsAttempt
	}
	return holdsNothing
}

// attempted reports whether dir holds a summary of run r (any status).
func attempted(dir string, r results.Run) bool {
	s, err := results.SweepDir(dir).Run(r.ID).ReadSummary()
	return err == nil && s.Seed == r.Seed
}

func sameDir(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// copyRun replaces to/runs/id with a copy of from/runs/id, and the
// degraded attempts to keeps of the run with from's (without them the
// copy would count fewer attempts than were made).
func copyRun(from, to, id string) error {
	if err := copyDir(string(results.SweepDir(from).Run(id)), string(results.SweepDir(to).Run(id))); err != nil {
		return err
	}
	for k := 1; ; k++ {
		dst := keptDir(to, id, k)
		if _, err := os.Stat(dst); err != nil {
			break
		}
		if err := os.RemoveAll(dst); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	for k := 1; ; k++ {
		src := keptDir(from, id, k)
		if _, err := os.Stat(src); err != nil {
			return nil
		}
		if err := copyDir(src, keptDir(to, id, k)); err != nil {
			return err
		}
	}
}

// copyDir replaces dst with a copy of src, hard-linking files where the
// file system allows.
func copyDir(src, dst string) error {
	if err := os.RemoveAll(dst); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return results.MkdirAll(target)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			if os.Link(path, target) == nil {
				return nil
			}
			return copyFile(path, target)
		}
		return nil // sockets, fifos: not results
	})
	if err != nil {
		return fmt.Errorf("merge: copy %s: %w", src, err)
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
