package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// degradedRun is f's run with run id's emulation always degraded.
func degradedRun(run func(context.Context, config.Config, string) (*results.Summary, error), id string) sweep.Runner {
	return func(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
		s, err := run(ctx, cfg, out)
		if err == nil && filepath.Base(out) == id {
			s.Fidelity = &fidelity.Fidelity{Status: fidelity.Degraded, Checks: []fidelity.Check{{Name: fidelity.CheckLateP99, Subject: "link1.down", Value: 60, Threshold: 1, Unit: fidelity.UnitMs}}}
			err = results.WriteJSON(filepath.Join(out, results.SummaryFile), s)
		}
		return s, err
	}
}

// keptAttempts lists the entries of a sweep directory's degraded/.
func keptAttempts(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(dir, results.DegradedDir))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// --reruns N runs a degraded run N more times and keeps every attempt;
// --reruns 0 keeps the first as final.
func TestSweepReruns(t *testing.T) {
	for _, tc := range []struct {
		reruns string
		calls  int
		kept   []string
		says   string
	}{
		{"2", 6, []string{"p02-r2", "p02-r2.2"}, "1 runs were degraded in every attempt (1 + --reruns 2)"},
		{"0", 4, nil, "1 runs were degraded in every attempt (1 + --reruns 0)"},
	} {
		dir := filepath.Join(t.TempDir(), "s")
		f := newFakeRun("")
		code, _, errs := runSweepWith(context.Background(), degradedRun(f.Run, "p02-r2"),
			"--vary", "dc.batch=25,100", "--repeat", "2", "--set", "link.trace=none", "--out", dir, "--reruns", tc.reruns)
		if code != 0 || len(f.Calls()) != tc.calls || !strings.Contains(errs, tc.says) {
			t.Fatalf("--reruns %s: exit %d after %d runs:\n%s", tc.reruns, code, len(f.Calls()), errs)
		}
		if got := keptAttempts(t, dir); !slices.Equal(got, tc.kept) {
			t.Errorf("--reruns %s: degraded/ holds %v, want %v", tc.reruns, got, tc.kept)
		}
	}
}

// emu reproduce passes --reruns to its sweeps.
func TestReproduceReruns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	f := newFakeRun("")
	code, _, errs := runReproduceWith(context.Background(), degradedRun(f.Run, "p01-r1"), "--parts", "queue", "--presets", "queue-fairness", "--out", dir, "--reruns", "3")
	if code != 0 || len(f.Calls()) != 60+3 {
		t.Fatalf("exit %d after %d runs (want 63)\n%s", code, len(f.Calls()), errs)
	}
	if got := keptAttempts(t, filepath.Join(dir, "queue-fairness")); !slices.Equal(got, []string{"p01-r1", "p01-r1.2", "p01-r1.3"}) {
		t.Errorf("degraded/ holds %v", got)
	}
}

func TestExecFlagsUsageErrors(t *testing.T) {
	checkUsageErrors(t, "emu sweep", runSweepWith, []usageCase{
		{[]string{"--vary", "dc.batch=25", "--reruns", "-1"}, "--reruns -1"},
		{[]string{"--vary", "dc.batch=25", "--reruns", "x"}, "--reruns"},
		{[]string{"--vary", "dc.batch=25", "--qlogs", "zstd"}, `--qlogs "zstd": want gzip, keep or drop`},
	})
	checkUsageErrors(t, "emu reproduce", runReproduceWith, []usageCase{
		{[]string{"--reruns", "-2"}, "--reruns -2"},
		{[]string{"--qlogs", "none"}, `--qlogs "none"`},
	})
}
