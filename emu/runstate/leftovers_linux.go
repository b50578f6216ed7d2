package runstate

import (
	"errors"
	"os"
	"strings"

	"github.com/dc-emu/emu/topo"
)

// Leftovers returns what of run id exists now: its namespaces and whether
// its state file does. After a run has closed, both are empty; tests use it
// to prove that nothing was left behind.
func Leftovers(id string) (namespaces []string, stateFile bool, err error) {
	names, err := topo.ListNamespaces()
	if err != nil {
		return nil, false, err
	}
	for _, n := range names {
		if strings.HasPrefix(n, "emu-"+id+"-") {
			namespaces = append(namespaces, n)
		}
	}
	_, err = os.Stat(statePath(id))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return namespaces, false, err
	}
	return namespaces, err == nil, nil
}
