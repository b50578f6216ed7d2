package reproduce

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// A reproduction run by a session: the plan comes first, a stop still
// writes the report and says how to resume, the same session again
// finishes, and a paper-scale reproduction over the quick one is refused
// before anything runs, saying why that most likely is.
func TestJobSession(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	run := func(p *Plan, f sweep.Runner, stop chan struct{}) (out, log string, err error) {
		var o, l bytes.Buffer
		s := sweep.Session{Name: "reproduce", Dir: dir, Out: &o, Options: sweep.Options{Runner: f, Progress: &l, Stop: stop}}
		err = s.Run(context.Background(), &Job{Plan: p, EmuVersion: "test"})
		return o.String(), l.String(), err
	}
	stop := make(chan struct{})
	f := newFake()
	f.During = func(n int, _ string) {
		if n == 4 {
			close(stop)
		}
	}
	out, log, err := run(smallPlan(t), f.Run, stop)
	if err == nil || err.Error() != "stopped; the same command with --out "+dir+" resumes" || len(f.Calls()) != 4 {
		t.Fatalf("stop: %v after %d runs", err, len(f.Calls()))
	}
	plan, writing, preset := strings.Index(log, "expected wall time: "), strings.Index(log, "reproduce: writing to "+dir), strings.Index(log, "reproduce: preset 1/2 batch-fairness")
	if plan < 0 || writing < plan || preset < writing || !strings.Contains(log, "expected disk use: ") {
		t.Errorf("log does not give the plan, then where it writes, then the first preset:\n%s", log)
	}
	if !strings.Contains(out, "report: "+filepath.Join(dir, results.ReportFile)) {
		t.Errorf("no report after the stop:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, results.ReproduceFile)); err != nil {
		t.Error(err)
	}

	f2 := newFake()
	if _, log, err := run(smallPlan(t), f2.Run, nil); err != nil || len(f2.Calls()) != 27-4 || !strings.Contains(log, "23 of 27 runs still to do") {
		t.Fatalf("resume: %v after %d runs\n%s", err, len(f2.Calls()), log)
	}

	paper, err := NewPlan("paper", nil)
	if err != nil {
		t.Fatal(err)
	}
	paper.Sweeps = slices.DeleteFunc(paper.Sweeps, func(s Sweep) bool { return s.Preset.Name != "batch-fairness" })
	f3 := newFake()
	_, _, err = run(paper, f3.Run, nil)
	if !errors.Is(err, sweep.ErrPlanChanged) || !strings.Contains(err.Error(), "another scale") || len(f3.Calls()) != 0 {
		t.Errorf("paper over quick: %v after %d runs", err, len(f3.Calls()))
	}
}

// The dry run is the plan with its wall time at o's runs at once and the
// disk use.
func TestJobWritePlan(t *testing.T) {
	var b bytes.Buffer
	o := sweep.Options{Jobs: sweep.Jobs{Auto: true}, Cores: 3}
	if err := (&Job{Plan: smallPlan(t)}).WritePlan(&b, t.TempDir(), o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 presets, 27 runs", "27 of 27 runs still to do, 3 at once", "expected disk use: "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, b.String())
		}
	}
}
