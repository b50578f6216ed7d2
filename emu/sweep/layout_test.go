package sweep

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/dc-emu/emu/emu/sweep/sweeptest"
	"github.com/dc-emu/emu/internal/emutest"
)

// doSweep prepares, executes (with the fake runner) and finishes a small
// sweep in a fresh directory under a 022 umask, and returns the directory.
func doSweep(t *testing.T) string {
	t.Helper()
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2})
	dir := filepath.Join(t.TempDir(), "sweep")
	if _, err := Prepare(dir, p, false); err != nil {
		t.Fatal(err)
	}
	if _, err := Execute(context.Background(), dir, p, Options{Runner: (&sweeptest.Runner{}).Run}); err != nil {
		t.Fatal(err)
	}
	if _, err := Finish(dir, AggregateOptions{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSweepDirLayout pins down what a sweep directory holds — every file
// and directory with its mode, the columns of sweep.csv and runs.csv and
// the fields of a run's summary.json — so that moving the code that
// writes them changes none of it.
func TestSweepDirLayout(t *testing.T) {
	dir := doSweep(t)
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel += "/"
		}
		fmt.Fprintf(&b, "%v %s\n", fi.Mode(), filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sweep.csv", "runs.csv"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		sc.Scan()
		fmt.Fprintf(&b, "%s: %s\n", name, sc.Text())
		f.Close()
	}
	raw, err := os.ReadFile(filepath.Join(dir, "runs", "p01-r1", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum map[string]json.RawMessage
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "summary.json: %s\n", strings.Join(slices.Sorted(maps.Keys(sum)), " "))
	emutest.Golden(t, "sweep-layout.golden", []byte(b.String()))
}
