package runstate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/dc-emu/emu/topo"
)

// Clean removes what runs whose owner process is gone left behind: their
// namespaces (with any process still inside, every veth, qdisc, queue and
// rule in them), their scratch directories and their state files. Live
// runs are not touched. With all, it also removes emu-* namespaces that
// have no state file at all and no live run (left by a run killed before
// it could write one, or by a killed test).
func Clean(all bool) (CleanReport, error) {
	var rep CleanReport
	var errs []error
	states, err := ListStates()
	if err != nil {
		return rep, err
	}
	known := map[string]bool{}
	live := map[string]bool{}
	for _, s := range states {
		known[s.ID] = true
		if s.Alive() {
			live[s.ID] = true
		}
	}
	names, err := topo.ListNamespaces()
	if err != nil {
		return rep, err
	}
	failed := map[string]bool{}
	for _, name := range names {
		id, ok := runIDOf(name)
		if !ok {
			continue
		}
		switch {
		case live[id]:
			continue
		case !known[id] && !all:
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s (no state file; emu clean --all removes it)", name))
			continue
		case !known[id] && stateExists(id):
			// A run that started after the states were listed (another
			// job of a sweep): it claimed its id before its namespaces.
			continue
		}
		if err := topo.DeleteNamespace(name); err != nil {
			errs = append(errs, err)
			failed[id] = true
			continue
		}
		rep.Namespaces = append(rep.Namespaces, name)
	}
	for _, s := range states {
		// A state file goes only with all of its run's namespaces: it is
		// what lets the next emu clean find them.
		if live[s.ID] || failed[s.ID] {
			continue
		}
		dir, err := removeScratch(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if dir != "" {
			rep.Scratch = append(rep.Scratch, dir)
		}
		if err := RemoveState(s.ID); err != nil {
			errs = append(errs, err)
			continue
		}
		rep.Runs = append(rep.Runs, s.ID)
	}
	return rep, errors.Join(errs...)
}

func stateExists(id string) bool {
	_, err := os.Stat(statePath(id))
	return err == nil
}

// removeScratch removes the scratch directory of run s, whose owner is
// gone, and returns it ("" if there was none). It removes only a directory
// of root's named as ScratchDir names it for that run (the name the state
// file records, or this process's ScratchDir for a state file cut short),
// never what a link points to.
func removeScratch(s RunState) (string, error) {
	dir := s.Scratch
	if dir == "" {
		dir = ScratchDir(s.ID)
	}
	if !filepath.IsAbs(dir) || filepath.Base(dir) != filepath.Base(ScratchDir(s.ID)) {
		return "", fmt.Errorf("run %s: scratch directory %q is not the run's; left alone", s.ID, dir)
	}
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("run %s: scratch: %w", s.ID, err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !fi.IsDir() || !ok || st.Uid != 0 {
		return "", fmt.Errorf("run %s: scratch %s is not a directory of root's; left alone", s.ID, dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("run %s: scratch: %w", s.ID, err)
	}
	return dir, nil
}
