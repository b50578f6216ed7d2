package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/findings"
	"github.com/dc-emu/emu/emu/sweep"
)

// runReproduceWith runs `emu reproduce args…` with a given runner.
func runReproduceWith(ctx context.Context, runner sweep.Runner, args ...string) (code int, stdout, stderr string) {
	return runWithRunner(ctx, reproduceCommand, runner, append([]string{"reproduce"}, args...)...)
}

func TestReproduceUsageErrors(t *testing.T) {
	checkUsageErrors(t, "emu reproduce", runReproduceWith, []usageCase{
		{[]string{"--scale", "huge"}, `no scale "huge"`},
		{[]string{"--parts", "core,figs"}, `no part "figs"`},
		{[]string{"--parts", ""}, "no part given"},
		{[]string{"core"}, `unknown command "core"`},
		{[]string{"--repeat", "3"}, "unknown flag: --repeat"},
		{[]string{"--presets", "ngtcp2-*"}, `--presets: reproduce: preset pattern "ngtcp2-*" matches no preset of parts core`},
	})
}

func TestReproduceDryRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	f := newFakeRun("")
	code, out, errs := runReproduceWith(context.Background(), f.Run, "--dry-run", "--parts", "queue,core", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"scale quick", "parts core,queue: 19 presets, 603 runs", "batch-fairness", "queue-fairness", "expected wall time:", "603 of 603 runs still to do", "expected disk use: ", "with --qlogs gzip (keep ", " free"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	checkNothingRan(t, f, dir, "the dry run")

	code, out, errs = runReproduceWith(context.Background(), f.Run, "--dry-run", "--parts", "queue,core", "--out", dir, "--presets", "queue-*,sc-pairs")
	if code != 0 {
		t.Fatalf("--presets: exit %d: %s", code, errs)
	}
	for _, want := range []string{"69 of 603 runs still to do", "534 more in presets held by --presets", "held ("} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run with --presets lacks %q:\n%s", want, out)
		}
	}
	checkNothingRan(t, f, dir, "the dry run with --presets")
}

// A run writes one sweep per preset and the report; the same command
// again runs nothing; a first Ctrl-C stops after the current run, still
// writes the report, and the rerun finishes; another scale in the same
// directory is a usage error.
func TestReproduceRunStopResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFakeRun("")
	f.During = func(int, string) {
		if len(f.Calls()) == 7 {
			cancel()
		}
	}
	code, out, errs := runReproduceWith(ctx, f.Run, "--parts", "queue", "--presets", "queue-fairness", "--out", dir)
	if code != 1 || len(f.Calls()) != 7 || !strings.Contains(errs, "stopped; the same command with --out "+dir+" resumes") {
		t.Fatalf("first Ctrl-C: exit %d after %d runs\n%s", code, len(f.Calls()), errs)
	}
	if !strings.Contains(errs, "expected wall time:") || !strings.Contains(errs, "reproduce: preset 1/2 queue-fairness") {
		t.Errorf("the plan and the preset's progress are not printed first:\n%s", errs)
	}
	if !strings.Contains(out, "report: "+filepath.Join(dir, "report.html")) {
		t.Errorf("no report after the stop:\n%s", out)
	}
	f2 := newFakeRun("")
	code, out, errs = runReproduceWith(context.Background(), f2.Run, "--parts", "queue", "--presets", "queue-fairness", "--out", dir)
	if code != 0 || len(f2.Calls()) != 60-7 {
		t.Fatalf("resume: exit %d after %d runs (want %d)\n%s", code, len(f2.Calls()), 60-7, errs)
	}
	if !strings.Contains(errs, "53 of 90 runs still to do") || !strings.Contains(out, "queue") {
		t.Errorf("resume: plan or verdicts missing\n%s\n%s", errs, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "reproduce.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := findings.ReadReport(b)
	if err != nil || rep.Scale != "quick" || len(rep.Findings) == 0 {
		t.Fatalf("reproduce.json: %v %+v", err, rep)
	}
	if _, err := os.Stat(filepath.Join(dir, "queue-fairness", "sweep.csv")); err != nil {
		t.Error(err)
	}
	f3 := newFakeRun("")
	if code, _, errs := runReproduceWith(context.Background(), f3.Run, "--parts", "queue", "--presets", "queue-fairness", "--out", dir); code != 0 || len(f3.Calls()) != 0 {
		t.Errorf("third time: exit %d, %d runs\n%s", code, len(f3.Calls()), errs)
	}
	if code, _, errs := runReproduceWith(context.Background(), f3.Run, "--parts", "queue", "--presets", "queue-fairness", "--scale", "paper", "--out", dir); code != 2 || !strings.Contains(errs, "another scale") {
		t.Errorf("paper over quick: exit %d\n%s", code, errs)
	}
}
