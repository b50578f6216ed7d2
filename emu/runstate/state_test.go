package runstate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Runs started at the same moment that drew the same id: exactly one
// claims it, and the others learn that it is taken.
func TestClaimStateIsExclusive(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = writeStateIn(dir, RunState{ID: "abc123", Command: "run"}, true)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrIDInUse):
			t.Errorf("claim failed with %v, want ErrIDInUse", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d claims of one id succeeded, want 1", won)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "abc123.json" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("state dir holds %v, want only abc123.json (no temporary files)", names)
	}
	// Rewriting the own state replaces it.
	if err := writeStateIn(dir, RunState{ID: "abc123", Command: "up"}, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "abc123.json")); !strings.Contains(string(b), `"up"`) {
		t.Errorf("rewritten state: %s", b)
	}
}
