package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// runSweepWith runs `emu sweep args…` with a given runner instead of
// emu.Run, the way Run would (exit status 2 for usage errors).
func runSweepWith(ctx context.Context, runner sweep.Runner, args ...string) (code int, stdout, stderr string) {
	return runWithRunner(ctx, sweepCommand, runner, append([]string{"sweep"}, args...)...)
}

// runWithRunner runs a command that executes runs (emu sweep, emu
// reproduce) with a given runner instead of emu.Run.
func runWithRunner(ctx context.Context, newCmd func(*env, sweepRunner) *cobra.Command, runner sweep.Runner, args ...string) (code int, stdout, stderr string) {
	return runCommandWith(ctx, func(e *env) *cobra.Command {
		return newCmd(e, func(*env, bool) (sweep.Runner, error) { return runner, nil })
	}, args...)
}

// runCommandWith runs one command built by newCmd, the way Run would.
func runCommandWith(ctx context.Context, newCmd func(e *env) *cobra.Command, args ...string) (code int, stdout, stderr string) {
	return runCommandIn(&env{ctx: ctx}, newCmd, args...)
}

// runCommandIn is runCommandWith in e, whose output it takes.
func runCommandIn(e *env, newCmd func(e *env) *cobra.Command, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	ctx := e.ctx
	e.stdout, e.stderr = &out, &errb
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

// newFakeRun stands in for emu.Run, which needs root and takes seconds
// per run: a run directory with a plausible summary.json whose goodput
// depends on the batch size and the seed; the run named fail (if any)
// fails as a server that exited would.
func newFakeRun(fail string) *sweeptest.Runner {
	return &sweeptest.Runner{
		Goodput: func(cfg config.Config, _ int) float64 {
			return 40 - float64(cfg.DC.Sched.Batch)/20 + float64(cfg.Seed%100)/50
		},
		Links: func(cfg config.Config) []results.LinkResult {
			var ls []results.LinkResult
			for i, l := range cfg.Links {
				ls = append(ls, results.LinkResult{Name: fmt.Sprintf("link%d", i+1), Dir: "down", CapacityMbps: l.Down.Rate / 1e6})
			}
			return ls
		},
		Fail:      func(_ config.Config, run string) bool { return run == fail },
		FailError: "flow dc: server exited",
	}
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
	checkUsageErrors(t, "emu sweep", runSweepWith, []usageCase{
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
	})
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
		"expected wall time: ", "(1 run at once)", "set-up and tear-down", "expected disk use: ",
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
	f := newFakeRun("")
	degraded := func(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
		s, err := f.Run(ctx, cfg, out)
		if err == nil && filepath.Base(out) == "p02-r2" {
			s.Fidelity = &fidelity.Fidelity{Status: fidelity.Degraded, Checks: []fidelity.Check{{Name: fidelity.CheckThreadWait, Subject: "delay link1.down", Value: 4, Threshold: 1, Unit: fidelity.UnitPercent}}}
			err = results.WriteJSON(filepath.Join(out, results.SummaryFile), s)
		}
		return s, err
	}
	code, out, errs := runSweepWith(context.Background(), degraded, args...)
	if code != 0 || len(f.Calls()) != 5 || !strings.Contains(errs, "1 runs were degraded in every attempt (1 + --reruns 1)") || !strings.Contains(errs, "thread.wait delay link1.down 4 (limit 1 %)") {
		t.Fatalf("exit %d after %d runs:\n%s", code, len(f.Calls()), errs)
	}
	if !strings.Contains(out, "DEGRADED") {
		t.Errorf("summary:\n%s", out)
	}
	// p02: one run ok, one degraded; in the statistics: 1, or 2 when kept.
	p02 := func() (degraded, n string) {
		rows := sweeptest.ReadCSV(t, dir)
		return rows[2][slices.Index(rows[0], "runs_degraded")], rows[2][slices.Index(rows[0], "total.goodput_mbps_n")]
	}
	if d, n := p02(); d != "1" || n != "1" {
		t.Errorf("sweep.csv: p02 runs_degraded %s, n %s; want 1, 1", d, n)
	}
	code, _, errs = runSweepWith(context.Background(), degraded, append(args, "--keep-degraded")...)
	if code != 0 || len(f.Calls()) != 5 || !strings.Contains(errs, "4 already done") {
		t.Fatalf("resume: exit %d after %d runs:\n%s", code, len(f.Calls()), errs)
	}
	if d, n := p02(); d != "1" || n != "2" {
		t.Errorf("sweep.csv with --keep-degraded: p02 runs_degraded %s, n %s; want 1, 2", d, n)
	}
}

func TestSweepRunResumeAndFailures(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	args := []string{"--vary", "dc.batch=25,100,500", "--repeat", "2", "--set", "link.trace=none", "--out", dir}
	f := newFakeRun("p03-r2")
	code, out, errs := runSweepWith(context.Background(), f.Run, args...)
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
	f2 := newFakeRun("")
	code, _, errs = runSweepWith(context.Background(), f2.Run, args...)
	if code != 0 || len(f2.Calls()) != 1 || !strings.Contains(errs, "5 already done") {
		t.Fatalf("resume: exit %d, %d runs, stderr:\n%s", code, len(f2.Calls()), errs)
	}
	// Another plan in the same directory is refused (exit 2) unless --force.
	other := append([]string{"--vary", "dc.batch=25,150"}, args[2:]...)
	code, _, errs = runSweepWith(context.Background(), f2.Run, other...)
	if code != 2 || !strings.Contains(errs, "different sweep") || !strings.Contains(errs, "--force") {
		t.Errorf("changed plan: exit %d, %s", code, errs)
	}
	code, _, errs = runSweepWith(context.Background(), f2.Run, append(other, "--force")...)
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
	f := newFakeRun("")
	f.During = func(_ int, run string) {
		if run == "p02-r1" {
			cancel()
		}
	}
	code, _, errs := runSweepWith(ctx, f.Run, "--vary", "dc.batch=25,100", "--repeat", "3", "--out", dir)
	if code != 1 || len(f.Calls()) != 2 || !strings.Contains(errs, "stopped after 2 of 6 runs") {
		t.Fatalf("exit %d after %d runs:\n%s", code, len(f.Calls()), errs)
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
	f := newFakeRun("")
	whole := filepath.Join(base, "whole")
	if code, _, errs := runSweepWith(context.Background(), f.Run, append(args, "--out", whole)...); code != 0 {
		t.Fatalf("whole: %s", errs)
	}
	var shards []string
	for i := 1; i <= 3; i++ {
		d := filepath.Join(base, fmt.Sprintf("shard%d", i))
		shards = append(shards, d)
		if code, _, errs := runSweepWith(context.Background(), f.Run, append(args, "--out", d, "--shard", fmt.Sprintf("%d/3", i))...); code != 0 {
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
