package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// runSweepWith runs `emu sweep args…` with a given runner instead of
// emu.Run, the way Run would (exit status 2 for usage errors).
func runSweepWith(ctx context.Context, runner sweep.Runner, args ...string) (code int, stdout, stderr string) {
	return runCommandWith(ctx, func(e *env) *cobra.Command {
		return sweepCommand(e, func(*env, bool) (sweep.Runner, error) { return runner, nil })
	}, append([]string{"sweep"}, args...)...)
}

// runCommandWith runs one command built by newCmd, the way Run would.
func runCommandWith(ctx context.Context, newCmd func(e *env) *cobra.Command, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	e := &env{ctx: ctx, stdout: &out, stderr: &errb}
	root := &cobra.Command{Use: "emu", SilenceUsage: true, SilenceErrors: true}
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newCmd(e))
	markArgErrors(root)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0, out.String(), errb.String()
	}
	fmt.Fprintf(&errb, "emu: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2, out.String(), errb.String()
	}
	return 1, out.String(), errb.String()
}

// fakeRun writes a run directory with a plausible summary.json whose goodput
// depends on the batch size and the seed; it stands in for emu.Run, which
// needs root and takes seconds per run.
type fakeRun struct {
	mu     sync.Mutex
	calls  []string
	fail   string // run id that fails
	during func(run string)
}

func (f *fakeRun) run(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
	id := filepath.Base(out)
	f.mu.Lock()
	f.calls = append(f.calls, id)
	f.mu.Unlock()
	if f.during != nil {
		f.during(id)
	}
	s := &results.Summary{Run: id, Scenario: cfg.Scenario, Status: results.StatusOK, Seed: cfg.Seed,
		Started: time.Unix(0, 0).UTC(), Config: config.Values(&cfg), JFI: 1}
	for _, fl := range cfg.Flows {
		s.Flows = append(s.Flows, results.FlowResult{Name: fl.Name, Path: fl.Path,
			GoodputMbps: 40 - float64(cfg.DC.Batch)/20 + float64(cfg.Seed%100)/50})
	}
	for i, l := range cfg.Links {
		s.Links = append(s.Links, results.LinkResult{Name: fmt.Sprintf("link%d", i+1), Dir: "down", CapacityMbps: l.Down.Rate / 1e6})
	}
	var err error
	if id == f.fail {
		s.Status, s.Error = results.StatusFailed, "flow dc: server exited"
		err = errors.New(s.Error)
	}
	if mkErr := os.MkdirAll(out, 0o755); mkErr != nil {
		return nil, mkErr
	}
	b, _ := json.Marshal(s)
	if wErr := os.WriteFile(filepath.Join(out, "summary.json"), b, 0o644); wErr != nil {
		return nil, wErr
	}
	return s, err
}

func (f *fakeRun) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func TestSweepListPresets(t *testing.T) {
	code, out, errs := runEmu(t, "sweep", "--list-presets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"batch — Fig. 4a (throughput)", "batch-fairness — Fig. 5a (fairness)",
		"vary  dc.batch=25,50,100,150,300,500", "vary  link.bw_ratio+dc.split=1:1,2:1,3:1,4:1,5:1",
		"lte-batch — Fig. 20", "satellite —", "rtt: 100ms (link1.delay=50ms)", "lfn —",
		"scenario throughput, 18 points × 10 repeats (grid)", "scenario fairness, 6 points × 10 repeats (one axis at a time)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--list-presets lacks %q", want)
		}
	}
}

// Bad values stop the sweep before anything runs, naming the key, with
// exit status 2.
func TestSweepUsageErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	f := &fakeRun{}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--vary", "dc.batch=25,0"}, "dc.batch=0"},
		{[]string{"--vary", "link.loss=1%,200%"}, "link.loss"},
		{[]string{"--vary", "dc.nope=1"}, "dc.nope"},
		{[]string{"--vary", "dc.batch"}, "KEY=V1,V2"},
		{[]string{"--vary", "run.seed=1,2"}, "--seed"},
		{[]string{"--set", "run.seed=5", "--vary", "dc.batch=1"}, "--seed"},
		{[]string{"--vary", "dc.batch=25", "--shard", "3/2"}, "--shard"},
		{[]string{"--preset", "nope"}, "batch-fairness"},
		{[]string{"--preset", "batch", "--set", "flow.size=x"}, "flow.size=x"},
		{[]string{"--vary", "dc.batch=25", "--repeat", "0"}, "--repeat"},
		{[]string{"--vary", "dc.batch=25", "--jobs", "0"}, "--jobs"},
		{[]string{"--vary", "dc.batch=25", "--jobs", "many"}, "--jobs"},
	} {
		code, _, errs := runSweepWith(context.Background(), f.run, append(tc.args, "--out", dir)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("emu sweep %v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	if f.count() != 0 {
		t.Errorf("%d runs started despite bad usage", f.count())
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("bad usage created the output directory")
	}
}

func TestSweepDryRun(t *testing.T) {
	code, out, errs := runEmu(t, "sweep", "--preset", "batch", "--repeat", "2", "--dry-run", "--shard", "1/2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"plan: 18 points × 2 repeats = 36 runs (grid), scenario throughput, base seed 1",
		"base: link.trace=none link.queue=100ms flow.size=50MB",
		"p01    dc.batch=25 stack=quic-default   dc.batch=25", "p07    dc.batch=100 stack=quic-default  (the base)",
		"runs of shard 1/2: 18",
		"p01 seeds r1=",
		"expected wall time: ", "(1 run at once)", "set-up and tear-down",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runEmu(t, "sweep", "--preset", "batch", "--repeat", "2", "--dry-run", "--jobs", "auto")
	if code != 0 || !strings.Contains(out, "--jobs auto decides after the first run") || !strings.Contains(out, " with 1 job, ") {
		t.Errorf("dry run with --jobs auto: exit %d\n%s%s", code, out, errs)
	}
}

// --jobs runs the runs at once; a run degraded twice is reported, counted
// in sweep.csv and kept in the statistics only with --keep-degraded.
func TestSweepJobsAndDegradedRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	args := []string{"--vary", "dc.batch=25,100", "--repeat", "2", "--set", "link.trace=none", "--out", dir, "--jobs", "2"}
	f := &fakeRun{}
	degraded := func(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
		s, err := f.run(ctx, cfg, out)
		if err == nil && filepath.Base(out) == "p02-r2" {
			s.Fidelity = &fidelity.Fidelity{Status: fidelity.Degraded, Checks: []fidelity.Check{{Name: fidelity.CheckThreadWait, Subject: "delay link1.down", Value: 4, Threshold: 1, Unit: fidelity.UnitPercent}}}
			err = results.WriteJSON(filepath.Join(out, results.SummaryFile), s)
		}
		return s, err
	}
	code, out, errs := runSweepWith(context.Background(), degraded, args...)
	if code != 0 || f.count() != 5 || !strings.Contains(errs, "1 runs were degraded also when run again") || !strings.Contains(errs, "thread.wait delay link1.down 4 (limit 1 %)") {
		t.Fatalf("exit %d after %d runs:\n%s", code, f.count(), errs)
	}
	if !strings.Contains(out, "DEGRADED") {
		t.Errorf("summary:\n%s", out)
	}
	// p02: one run ok, one degraded; in the statistics: 1, or 2 when kept.
	p02 := func() (degraded, n string) {
		rows := readSweepCSV(t, dir)
		return rows[2][slices.Index(rows[0], "runs_degraded")], rows[2][slices.Index(rows[0], "total.goodput_mbps_n")]
	}
	if d, n := p02(); d != "1" || n != "1" {
		t.Errorf("sweep.csv: p02 runs_degraded %s, n %s; want 1, 1", d, n)
	}
	code, _, errs = runSweepWith(context.Background(), degraded, append(args, "--keep-degraded")...)
	if code != 0 || f.count() != 5 || !strings.Contains(errs, "4 already done") {
		t.Fatalf("resume: exit %d after %d runs:\n%s", code, f.count(), errs)
	}
	if d, n := p02(); d != "1" || n != "2" {
		t.Errorf("sweep.csv with --keep-degraded: p02 runs_degraded %s, n %s; want 1, 2", d, n)
	}
}

func TestSweepRunResumeAndFailures(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	args := []string{"--vary", "dc.batch=25,100,500", "--repeat", "2", "--set", "link.trace=none", "--out", dir}
	f := &fakeRun{fail: "p03-r2"}
	code, out, errs := runSweepWith(context.Background(), f.run, args...)
	if code != 1 || !strings.Contains(errs, "1 of 6 runs failed") || !strings.Contains(errs, "p03-r2 failed: flow dc: server exited") {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	for _, want := range []string{"[1/6] p01-r1: dc.batch=25, seed", "ETA", "[6/6] p03-r2 failed"} {
		if !strings.Contains(errs, want) {
			t.Errorf("progress lacks %q:\n%s", want, errs)
		}
	}
	if !strings.Contains(out, "p03    500       1/2") || !strings.Contains(out, "results: "+filepath.Join(dir, "sweep.csv")) {
		t.Errorf("stdout:\n%s", out)
	}
	for _, name := range []string{"plan.json", "sweep.csv", "report.html", "figures/goodput-dc.batch.svg", "figures/goodput-dc.batch.png", "runs/p02-r1/summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	// Rerun: only the failed run is redone, and now it succeeds.
	f2 := &fakeRun{}
	code, _, errs = runSweepWith(context.Background(), f2.run, args...)
	if code != 0 || f2.count() != 1 || !strings.Contains(errs, "5 already done") {
		t.Fatalf("resume: exit %d, %d runs, stderr:\n%s", code, f2.count(), errs)
	}
	// Another plan in the same directory is refused (exit 2) unless --force.
	other := append([]string{"--vary", "dc.batch=25,150"}, args[2:]...)
	code, _, errs = runSweepWith(context.Background(), f2.run, other...)
	if code != 2 || !strings.Contains(errs, "different sweep") || !strings.Contains(errs, "--force") {
		t.Errorf("changed plan: exit %d, %s", code, errs)
	}
	code, _, errs = runSweepWith(context.Background(), f2.run, append(other, "--force")...)
	if code != 0 {
		t.Errorf("--force: exit %d, %s", code, errs)
	}
}

// The first Ctrl-C (the context main cancels) finishes the current run,
// stops, aggregates what exists and exits non-zero.
func TestSweepCtrlCStopsAfterTheCurrentRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeRun{}
	f.during = func(run string) {
		if run == "p02-r1" {
			cancel()
		}
	}
	code, _, errs := runSweepWith(ctx, f.run, "--vary", "dc.batch=25,100", "--repeat", "3", "--out", dir)
	if code != 1 || f.count() != 2 || !strings.Contains(errs, "stopped after 2 of 6 runs") {
		t.Fatalf("exit %d after %d runs:\n%s", code, f.count(), errs)
	}
	s, err := results.ReadSummary(filepath.Join(dir, "runs", "p02-r1"))
	if err != nil || s.Status != results.StatusOK {
		t.Errorf("the current run was not finished: %+v %v", s, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sweep.csv")); err != nil {
		t.Errorf("no aggregate after stopping: %v", err)
	}
}

func TestSweepShardsThenMerge(t *testing.T) {
	base := t.TempDir()
	args := []string{"--scenario", "fairness", "--vary", "dc.batch=25,100,500", "--repeat", "3"}
	f := &fakeRun{}
	whole := filepath.Join(base, "whole")
	if code, _, errs := runSweepWith(context.Background(), f.run, append(args, "--out", whole)...); code != 0 {
		t.Fatalf("whole: %s", errs)
	}
	var shards []string
	for i := 1; i <= 3; i++ {
		d := filepath.Join(base, fmt.Sprintf("shard%d", i))
		shards = append(shards, d)
		if code, _, errs := runSweepWith(context.Background(), f.run, append(args, "--out", d, "--shard", fmt.Sprintf("%d/3", i))...); code != 0 {
			t.Fatalf("shard %d: %s", i, errs)
		}
	}
	merged := filepath.Join(base, "merged")
	code, out, errs := runEmu(t, append([]string{"sweep", "merge", "--out", merged}, shards...)...)
	if code != 0 || !strings.Contains(errs, "9 runs copied") || !strings.Contains(out, "JFI") {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, errs)
	}
	want, _ := os.ReadFile(filepath.Join(whole, "sweep.csv"))
	got, _ := os.ReadFile(filepath.Join(merged, "sweep.csv"))
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("merged sweep.csv:\n%s\nwhole:\n%s", got, want)
	}
	// Merging only some shards says what is missing; merge needs --out.
	code, _, errs = runEmu(t, "sweep", "merge", "--out", filepath.Join(base, "partial"), shards[0])
	if code != 0 || !strings.Contains(errs, "runs not done by any shard yet") {
		t.Errorf("partial merge: exit %d %s", code, errs)
	}
	if code, _, _ := runEmu(t, "sweep", "merge", shards[0]); code != 2 {
		t.Errorf("merge without --out: exit %d", code)
	}
}

func TestPrefixWriter(t *testing.T) {
	var b bytes.Buffer
	p := &prefixWriter{w: &b, prefix: "> "}
	fmt.Fprint(p, "one\ntw")
	fmt.Fprint(p, "o\nthree")
	p.Flush()
	if b.String() != "> one\n> two\n> three\n" {
		t.Errorf("%q", b.String())
	}
}

// readSweepCSV reads dir/sweep.csv: the header, then a row per point.
func readSweepCSV(t *testing.T, dir string) [][]string {
	t.Helper()
	fh, err := os.Open(filepath.Join(dir, "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
