package reproduce

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/findings"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study/paper"
	"github.com/dc-emu/emu/emu/sweep"
)

// TestExecuteStopsAndResumes: the first Ctrl-C (Stop) during a run of the
// first preset lets it finish and starts nothing else; the same call again
// skips every run that ended ok, does the rest of both presets, and the
// estimate then has nothing left to do.
func TestExecuteStopsAndResumes(t *testing.T) {
	root := t.TempDir()
	p := smallPlan(t)
	total := p.Runs() // (6 + 3) points × 3 repeats
	stop := make(chan struct{})
	f := newFake()
	f.During = func(n int, _ string) {
		if n == 4 {
			close(stop)
		}
	}
	var log bytes.Buffer
	out, err := Execute(context.Background(), root, p, sweep.Options{Runner: f.Run, Progress: &log, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Stopped || len(out.Sweeps) != 1 || out.Sweeps[0].OK != 4 || out.Complete(p) {
		t.Fatalf("after the stop: %+v, first sweep %+v", out, out.Sweeps[0].Outcome)
	}
	if !strings.Contains(log.String(), "reproduce: preset 1/2 batch-fairness") {
		t.Errorf("progress does not name the preset:\n%s", log.String())
	}
	// The stopped preset was aggregated; the other was not started.
	if _, err := os.Stat(filepath.Join(root, "batch-fairness", results.CSVFile)); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(root, "sc-pairs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the second preset was started: %v", err)
	}
	_, all, todo := p.Estimate(root, 1)
	if all.Runs != total || todo.Runs != total-4 || todo.Wall >= all.Wall {
		t.Errorf("estimate after 4 runs: all %+v, to do %+v", all, todo)
	}

	f2 := newFake()
	out, err = Execute(context.Background(), root, p, sweep.Options{Runner: f2.Run})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Complete(p) || out.Sweeps[0].Skipped != 4 || len(f2.Calls()) != total-4 {
		t.Errorf("resumed: complete %v, skipped %d, %d runs done (want %d)", out.Complete(p), out.Sweeps[0].Skipped, len(f2.Calls()), total-4)
	}
	for _, c := range f2.Calls() {
		for _, d := range f.Calls() {
			if c == d {
				t.Errorf("run %s done twice", c)
			}
		}
	}
	if _, _, todo := p.Estimate(root, 1); todo.Runs != 0 || todo.Wall != 0 {
		t.Errorf("estimate after all runs: %+v to do", todo)
	}
}

// TestExecuteInterrupt: the second Ctrl-C (the context) interrupts the
// current run, which is recorded as interrupted and redone next time.
func TestExecuteInterrupt(t *testing.T) {
	root := t.TempDir()
	p := smallPlan(t)
	ctx, cancel := context.WithCancel(context.Background())
	f := newFake()
	f.During = func(n int, _ string) {
		if n == 2 {
			cancel()
		}
	}
	out, err := Execute(ctx, root, p, sweep.Options{Runner: f.Run})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Interrupted || out.Sweeps[0].OK != 1 || len(out.Sweeps[0].Failures) != 1 || out.Sweeps[0].Failures[0].Status != results.StatusInterrupted {
		t.Errorf("interrupted: %+v, first sweep %+v", out, out.Sweeps[0].Outcome)
	}
	f2 := newFake()
	if _, err := Execute(context.Background(), root, p, sweep.Options{Runner: f2.Run}); err != nil {
		t.Fatal(err)
	}
	if got := f2.Calls(); len(got) != p.Runs()-1 || got[0] != f.Calls()[1] {
		t.Errorf("resumed with %d runs starting %v; want %d starting with the interrupted %s", len(got), got[:1], p.Runs()-1, f.Calls()[1])
	}
}

// A directory made at another scale is not resumed as this one.
func TestExecuteRefusesAnotherScale(t *testing.T) {
	root := t.TempDir()
	p := smallPlan(t)
	p.Sweeps = p.Sweeps[1:] // sc-pairs only
	f := newFake()
	if _, err := Execute(context.Background(), root, p, sweep.Options{Runner: f.Run}); err != nil {
		t.Fatal(err)
	}
	paper, err := NewPlan("paper", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range paper.Sweeps {
		if s.Preset.Name == "sc-pairs" {
			paper.Sweeps = []Sweep{s}
		}
	}
	if _, err := Execute(context.Background(), root, paper, sweep.Options{Runner: f.Run}); !errors.Is(err, sweep.ErrPlanChanged) {
		t.Errorf("paper scale over a quick directory: %v, want ErrPlanChanged", err)
	}
}

// TestWriteReport: from the presets' sweep directories, report.html and
// reproduce.json, with the findings that read the plan's presets only, and
// the wall time of both sessions.
func TestWriteReport(t *testing.T) {
	root := t.TempDir()
	p := smallPlan(t)
	f := newFake()
	if _, err := Execute(context.Background(), root, p, sweep.Options{Runner: f.Run}); err != nil {
		t.Fatal(err)
	}
	rep, err := WriteReport(root, p, ReportOptions{Session: 90e9, EmuVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rep.Findings {
		ids = append(ids, r.ID)
		if r.Verdict == findings.NotJudged && strings.Contains(r.Reason, "no results of preset batch-fairness") {
			t.Errorf("finding %s: %s", r.ID, r.Reason)
		}
	}
	if len(rep.Findings) == 0 || len(rep.Findings) == len(paper.Findings()) {
		t.Errorf("%d of %d findings reported (%v); want those reading batch-fairness or sc-pairs", len(rep.Findings), len(paper.Findings()), ids)
	}
	if rep.Scale != "quick" || rep.Repeat != 3 || strings.Join(rep.Parts, ",") != "core" || rep.WallTimeS != 90 {
		t.Errorf("report: scale %s, repeat %d, parts %v, wall %v s", rep.Scale, rep.Repeat, rep.Parts, rep.WallTimeS)
	}
	b, err := os.ReadFile(filepath.Join(root, results.ReproduceFile))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := findings.ReadReport(b); err != nil || len(got.Findings) != len(rep.Findings) {
		t.Errorf("reproduce.json: %v", err)
	}
	page, err := os.ReadFile(filepath.Join(root, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(`<img src="data:image/svg`)) || !bytes.Contains(page, []byte("batch-fairness")) {
		t.Error("report.html has no figures of batch-fairness")
	}
	// A second session adds its wall time to the first's.
	rep, err = WriteReport(root, p, ReportOptions{Session: 30e9})
	if err != nil || rep.WallTimeS != 120 {
		t.Errorf("second session: wall %v s (%v), want 120", rep.WallTimeS, err)
	}
}

// A preset never run leaves its findings not judged; the report still
// comes out.
func TestWriteReportPartial(t *testing.T) {
	root := t.TempDir()
	p := smallPlan(t)
	rep, err := WriteReport(root, p, ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Findings {
		if r.Verdict != findings.NotJudged {
			t.Errorf("finding %s judged %s without any run", r.ID, r.Verdict)
		}
	}
}

// A reproduction kept as its record alone — report.html, reproduce.json
// and, per preset, plan.json, runs.csv and sweep.csv, what docs/ holds —
// gives the same verdicts, and resuming it runs nothing again.
func TestRecordAloneResumes(t *testing.T) {
	root := t.TempDir()
	p := smallPlan(t)
	if _, err := Execute(context.Background(), root, p, sweep.Options{Runner: newFake().Run}); err != nil {
		t.Fatal(err)
	}
	want, err := WriteReport(root, p, ReportOptions{Session: 60e9})
	if err != nil {
		t.Fatal(err)
	}
	kept := t.TempDir()
	for _, name := range []string{results.ReproduceFile, results.ReportFile} {
		copyFile(t, filepath.Join(root, name), filepath.Join(kept, name))
	}
	for _, s := range p.Sweeps {
		for _, name := range []string{results.PlanFile, results.RunsFile, results.CSVFile} {
			copyFile(t, filepath.Join(s.Dir(root), name), filepath.Join(s.Dir(kept), name))
		}
	}
	if _, _, todo := p.Estimate(kept, 1); todo.Runs != 0 {
		t.Errorf("the record alone leaves %d runs to do", todo.Runs)
	}
	f := newFake()
	out, err := Execute(context.Background(), kept, p, sweep.Options{Runner: f.Run})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Calls()) != 0 || !out.Complete(p) {
		t.Errorf("resumed from the record: ran %v, complete %v", f.Calls(), out.Complete(p))
	}
	got, err := WriteReport(kept, p, ReportOptions{Session: 30e9})
	if err != nil {
		t.Fatal(err)
	}
	if got.WallTimeS != 90 {
		t.Errorf("wall time %v s, want the 60 s before and this session's 30", got.WallTimeS)
	}
	for i, f := range want.Findings {
		g := got.Findings[i]
		if g.ID != f.ID || g.Verdict != f.Verdict || g.Reason != f.Reason {
			t.Errorf("finding %s: %s (%s) from the record, %s (%s) from the runs", f.ID, g.Verdict, g.Reason, f.Verdict, f.Reason)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
