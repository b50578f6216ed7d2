package sweep

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// timedRunner is a fake runner on synctest's clock: each run takes took
// (fake time), uses cpu of a core for it, and comes back degraded when
// degrade says so given the most runs that ran at once during it.
type timedRunner struct {
	f       sweeptest.Runner
	took    time.Duration
	cpu     float64                 // cores a run uses
	cpuOf   func(id string) float64 // or this, by run
	degrade func(id string, active int) bool

	mu      sync.Mutex
	running map[string]bool
	peak    int
	cpuUsed time.Duration
	peaks   map[string]int // most runs at once during each run
}

func (r *timedRunner) run(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
	id := filepath.Base(out)
	r.mu.Lock()
	if r.running == nil {
		r.running, r.peaks = map[string]bool{}, map[string]int{}
	}
	r.running[id] = true
	r.peaks[id] = 0 // a second attempt starts afresh
	now := len(r.running)
	r.peak = max(r.peak, now)
	for k := range r.running {
		r.peaks[k] = max(r.peaks[k], now)
	}
	r.mu.Unlock()
	select {
	case <-time.After(r.took):
	case <-ctx.Done():
	}
	sum, err := r.f.Run(ctx, cfg, out)
	r.mu.Lock()
	delete(r.running, id)
	cores := r.cpu
	if r.cpuOf != nil {
		cores = r.cpuOf(id)
	}
	r.cpuUsed += time.Duration(cores * float64(r.took))
	active := r.peaks[id]
	r.mu.Unlock()
	if sum != nil && err == nil {
		sum.Fidelity = &fidelity.Fidelity{Status: fidelity.OK}
		if r.degrade != nil && r.degrade(id, active) {
			sum.Fidelity = &fidelity.Fidelity{Status: fidelity.Degraded, Checks: []fidelity.Check{
				{Name: fidelity.CheckLateP99, Subject: "link1.down", Value: 3.2, Threshold: 1, Unit: fidelity.UnitMs},
			}}
		}
		if werr := results.WriteJSON(filepath.Join(out, results.SummaryFile), sum); werr != nil {
			return nil, werr
		}
	}
	return sum, err
}

func (r *timedRunner) cpuTime() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cpuUsed
}

// Three runs at once: six runs of 10 s take 20 s, never more than three
// overlap, and every run has the seed and results it has one at a time.
func TestJobsRunAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100,500"), Repeat: 2})
		seq, par := prepared(t, p), prepared(t, p)
		one := &timedRunner{took: 10 * time.Second}
		if _, err := Execute(context.Background(), seq, p, Options{Runner: one.run}); err != nil {
			t.Fatal(err)
		}
		r := &timedRunner{took: 10 * time.Second}
		start := time.Now()
		out, err := Execute(context.Background(), par, p, Options{Runner: r.run, Jobs: Jobs{N: 3}})
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took != 20*time.Second {
			t.Errorf("6 runs of 10 s, 3 at once, took %v", took)
		}
		if r.peak != 3 || out.OK != 6 || out.Jobs != 3 {
			t.Errorf("peak %d at once, outcome %+v", r.peak, out)
		}
		a, err := Aggregate(seq, p, AggregateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Aggregate(par, p, AggregateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range a.Rows {
			sa, sb := a.Rows[i].Stats[results.MetricGoodput], b.Rows[i].Stats[results.MetricGoodput]
			if sa != sb {
				t.Errorf("point %s: %+v one at a time, %+v three at once", a.Rows[i].ID, sa, sb)
			}
		}
	})
}

// Auto runs the first run alone, measures its CPU and fits as many runs as
// AutoBudget of the cores allows: 0.4 of a core each on 2 cores is 4.
func TestJobsAutoCalibrates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,50,100,150,300"), Repeat: 2})
		dir := prepared(t, p)
		r := &timedRunner{took: 10 * time.Second, cpu: 0.4}
		var log strings.Builder
		out, err := Execute(context.Background(), dir, p, Options{Runner: r.run, Jobs: Jobs{Auto: true}, Cores: 2, CPUTime: r.cpuTime, Progress: &log})
		if err != nil {
			t.Fatal(err)
		}
		if r.peaks["p01-r1"] != 1 {
			t.Errorf("the calibration run ran beside %d others", r.peaks["p01-r1"]-1)
		}
		if r.peak != 4 || out.Jobs != 4 || out.OK != 10 {
			t.Errorf("peak %d at once, outcome %+v", r.peak, out)
		}
		if !strings.Contains(log.String(), "jobs auto: one run used 0.40 of a core (4.0 s CPU in 10.0 s); 2 cores × 90 % → 4 runs at once") {
			t.Errorf("no calibration line:\n%s", log.String())
		}
	})
}

// A light first run calibrates auto high; when the runs that follow use
// more, the CPU readings over the sweep bring it down, and never up.
func TestJobsAutoFollowsTheRunsCPU(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,50,100,150,300,500"), Repeat: 4})
		dir := prepared(t, p)
		r := &timedRunner{took: 10 * time.Second, cpuOf: func(id string) float64 {
			if id == "p01-r1" {
				return 0.3 // 1.8 / 0.3: six at once
			}
			return 0.85 // two fit
		}}
		var log strings.Builder
		out, err := Execute(context.Background(), dir, p, Options{Runner: r.run, Jobs: Jobs{Auto: true}, Cores: 2, CPUTime: r.cpuTime, Progress: &log})
		if err != nil {
			t.Fatal(err)
		}
		if r.peak != 6 || out.Jobs != 2 || out.OK != 24 {
			t.Errorf("peak %d, outcome %+v\n%s", r.peak, out, log.String())
		}
		if !strings.Contains(log.String(), "→ 6 runs at once") || !strings.Contains(log.String(), "2 runs at once from now on") {
			t.Errorf("progress:\n%s", log.String())
		}
	})
}

// A first run degraded alone says the host has no room: auto stays at one
// run at once and calibrates on the next run that keeps up alone.
func TestJobsAutoCalibratesOnARunThatKeptUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,50,100,150,300"), Repeat: 2})
		dir := prepared(t, p)
		r := &timedRunner{took: 10 * time.Second, cpu: 0.4, degrade: func(id string, _ int) bool { return id == "p01-r1" }}
		out, err := Execute(context.Background(), dir, p, Options{Runner: r.run, Jobs: Jobs{Auto: true}, Cores: 2, CPUTime: r.cpuTime})
		if err != nil {
			t.Fatal(err)
		}
		// p01-r1 twice alone (degraded both times), then p02-r1 alone.
		if r.peaks["p01-r1"] != 1 || r.peaks["p02-r1"] != 1 || r.peak != 4 || out.Jobs != 4 || !slices.Equal(out.Degraded, []string{"p01-r1"}) {
			t.Errorf("peaks %v, outcome %+v", r.peaks, out)
		}
	})
}

// Runs degraded when three run at once: auto (which calibrates to three)
// drops to two at once and stays there, each degraded run is run once
// more (below three at once), and nothing is left degraded.
func TestJobsAutoLowersOnDegradedRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,50,100,150,300,500"), Repeat: 2})
		dir := prepared(t, p)
		r := &timedRunner{took: 10 * time.Second, cpu: 0.6, degrade: func(_ string, active int) bool { return active > 2 }}
		var log strings.Builder
		out, err := Execute(context.Background(), dir, p, Options{Runner: r.run, Jobs: Jobs{Auto: true}, Cores: 2, CPUTime: r.cpuTime, Progress: &log})
		if err != nil {
			t.Fatal(err)
		}
		// Three runs at once degrade; a rerun waits at the back of the
		// queue, so the slot the first degraded run frees may take a new
		// run beside the two still running before the second degraded one
		// lowers auto to two: three reruns, or four, by which of the runs
		// that end together is judged first.
		if out.Jobs != 2 || out.OK != 12 || len(out.Degraded) != 0 || out.Reruns < 3 || out.Reruns > 4 || r.peak != 3 {
			t.Fatalf("outcome %+v\n%s", out, log.String())
		}
		if !strings.Contains(log.String(), "running it again") || !strings.Contains(log.String(), "2 runs at once from now on") {
			t.Errorf("progress:\n%s", log.String())
		}
		tab, err := Aggregate(dir, p, AggregateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if tab.DegradedRuns() != 0 {
			t.Errorf("%d degraded runs in the table", tab.DegradedRuns())
		}
		// Every rerun kept its first attempt.
		for _, id := range []string{"p02-r1", "p03-r1", "p04-r1"} {
			if _, ok := okRun(filepath.Join(dir, results.DegradedDir, id), p, runOf(p, id)); !ok {
				t.Errorf("no first attempt of %s in degraded/", id)
			}
		}
	})
}

func runOf(p *results.Plan, id string) results.Run {
	for _, r := range p.Runs {
		if r.ID == id {
			return r
		}
	}
	return results.Run{}
}

// A fixed --jobs stays where the user put it; a run degraded twice stays
// degraded, is left out of the statistics (kept with KeepDegraded) and is
// not run again on resume.
func TestDegradedTwiceIsFinal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,500"), Repeat: 2})
		dir := prepared(t, p)
		r := &timedRunner{took: 5 * time.Second, degrade: func(id string, _ int) bool { return id == "p02-r1" }}
		out, err := Execute(context.Background(), dir, p, Options{Runner: r.run, Jobs: Jobs{N: 2}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Jobs != 2 || out.Reruns != 1 || !slices.Equal(out.Degraded, []string{"p02-r1"}) || !out.Complete() {
			t.Fatalf("outcome %+v", out)
		}
		tab, err := Aggregate(dir, p, AggregateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		row := tab.Rows[1]
		if row.OK != 1 || row.Degraded != 1 || row.Stats[results.MetricGoodput].N != 1 {
			t.Errorf("row %+v", row)
		}
		var why string
		for _, rr := range tab.Runs {
			if rr.ID == "p02-r1" {
				why = rr.String()
			}
		}
		if !strings.Contains(why, "degraded: emulation degraded: delay_line.late_p99 link1.down 3.2 (limit 1 ms)") {
			t.Errorf("run listed as %q", why)
		}
		kept, err := Aggregate(dir, p, AggregateOptions{KeepDegraded: true})
		if err != nil {
			t.Fatal(err)
		}
		if st := kept.Rows[1].Stats[results.MetricGoodput]; st.N != 2 {
			t.Errorf("kept: %+v", st)
		}
		again := &timedRunner{took: 5 * time.Second}
		out, err = Execute(context.Background(), dir, p, Options{Runner: again.run})
		if err != nil || out.Skipped != 4 || len(again.f.Calls()) != 0 {
			t.Errorf("resume redid %v: %+v %v", again.f.Calls(), out, err)
		}
	})
}

// A sweep that ended after a degraded run but before its second attempt
// makes that attempt when resumed, and only it.
func TestResumeRerunsDegraded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,500"), Repeat: 1})
		dir := prepared(t, p)
		r := &timedRunner{took: time.Second}
		if _, err := Execute(context.Background(), dir, p, Options{Runner: r.run}); err != nil {
			t.Fatal(err)
		}
		rewriteSummary(t, dir, "p01-r1", func(s *results.Summary) {
			s.Fidelity = &fidelity.Fidelity{Status: fidelity.Degraded}
		})
		again := &timedRunner{took: time.Second}
		out, err := Execute(context.Background(), dir, p, Options{Runner: again.run})
		if err != nil || out.Skipped != 1 || out.OK != 1 || !slices.Equal(again.f.Calls(), []string{"p01-r1"}) {
			t.Errorf("resume ran %v: %+v %v", again.f.Calls(), out, err)
		}
		if _, ok := okRun(filepath.Join(dir, results.DegradedDir, "p01-r1"), p, p.Runs[0]); !ok {
			t.Error("the first attempt is not in degraded/")
		}
	})
}

// The first Ctrl-C lets every running run finish and starts no other; the
// second interrupts the running ones, which are redone on resume.
func TestStopAndInterruptWithJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,50,100,150,300,500"), Repeat: 1})
		dir := prepared(t, p)
		stop := make(chan struct{})
		r := &timedRunner{took: 10 * time.Second}
		go func() {
			time.Sleep(15 * time.Second) // the second three are running
			close(stop)
		}()
		out, err := Execute(context.Background(), dir, p, Options{Runner: r.run, Jobs: Jobs{N: 3}, Stop: stop})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Stopped || out.OK != 6 || len(r.f.Calls()) != 6 {
			t.Errorf("stop: ran %v, outcome %+v", r.f.Calls(), out)
		}

		p = testPlan(t, Spec{Axes: axes(t, "dc.batch=25,50,100,150,300,500"), Repeat: 2})
		dir = prepared(t, p)
		ctx, cancel := context.WithCancel(context.Background())
		r = &timedRunner{took: 10 * time.Second}
		go func() {
			time.Sleep(15 * time.Second)
			cancel()
		}()
		out, err = Execute(ctx, dir, p, Options{Runner: r.run, Jobs: Jobs{N: 4}})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Interrupted || out.OK != 4 || len(out.Failures) != 4 || len(r.f.Calls()) != 8 {
			t.Fatalf("interrupt: ran %v, outcome %+v", r.f.Calls(), out)
		}
		for _, f := range out.Failures {
			if f.Status != results.StatusInterrupted {
				t.Errorf("%+v", f)
			}
		}
		again := &timedRunner{took: 10 * time.Second}
		out, err = Execute(context.Background(), dir, p, Options{Runner: again.run, Jobs: Jobs{N: 4}})
		if err != nil || !out.Complete() || out.Skipped != 4 || len(again.f.Calls()) != 8 {
			t.Errorf("resume ran %v: %+v %v", again.f.Calls(), out, err)
		}
	})
}

func TestGovernor(t *testing.T) {
	for _, tc := range []struct {
		cores     int
		cpu, wall time.Duration
		want      int
	}{
		{2, 2500 * time.Millisecond, 5 * time.Second, 3}, // 0.5 core: 1.8 / 0.5
		{2, 6500 * time.Millisecond, 10 * time.Second, 2},
		{2, 14 * time.Second, 10 * time.Second, 1}, // more than a core: alone
		{2, 0, 10 * time.Second, 8},                // nothing measured: the cap
		{8, time.Second, 10 * time.Second, 32},     // 72: capped at 4 per core
		{1, 2 * time.Second, 10 * time.Second, 4},
	} {
		g := newGovernor(Jobs{Auto: true}, tc.cores)
		if g.Limit() != 1 || !g.Calibrating() {
			t.Fatalf("auto starts at %d", g.Limit())
		}
		if g.Calibrate(tc.cpu, tc.wall); g.Limit() != tc.want {
			t.Errorf("%d cores, %v CPU in %v: %d jobs, want %d", tc.cores, tc.cpu, tc.wall, g.Limit(), tc.want)
		}
		if g.Calibrate(0, time.Second) != "" {
			t.Error("calibrated twice")
		}
	}
	g := newGovernor(Jobs{Auto: true}, 2)
	g.Calibrate(time.Second, 10*time.Second) // 0.1 core: 18, capped at 8
	if g.Limit() != 8 {
		t.Fatalf("limit %d", g.Limit())
	}
	for _, step := range []struct {
		at   int
		bad  bool
		want int
	}{
		{8, true, 8},  // one stray degraded run at 8: kept
		{8, false, 8}, // runs that kept up
		{8, false, 8},
		{8, false, 8},
		{8, false, 8},
		{8, false, 8},
		{8, false, 8},
		{8, false, 8},
		{8, false, 8},
		{8, true, 8}, // 2 of 10: not more than one in five
		{8, true, 7}, // 3 of 11: below 8
		{8, true, 7}, // a run started before the change: already below
		{5, true, 7}, // 1 of 1 at 5: stray
		{5, true, 4}, // 2 of 2
		{7, true, 4}, // never raised
		{7, true, 4},
		{1, true, 4}, // alone: the run itself, not the concurrency
		{1, true, 4},
	} {
		g.Finished(step.at, step.bad)
		if g.Limit() != step.want {
			t.Errorf("%+v: limit %d, want %d", step, g.Limit(), step.want)
		}
	}
	// CPU readings only lower it.
	g.Load(10*time.Second, 20*time.Second) // 0.5 core: 3 fit
	if g.Limit() != 3 {
		t.Errorf("after a reading of 0.5 core per run: limit %d", g.Limit())
	}
	g.Load(time.Second, 20*time.Second)
	if g.Limit() != 3 {
		t.Errorf("a light reading raised the limit to %d", g.Limit())
	}
	fixed := newGovernor(Jobs{N: 3}, 2)
	if fixed.Calibrating() || fixed.Finished(3, true) != "" || fixed.Finished(3, true) != "" || fixed.Load(time.Minute, time.Second) != "" || fixed.Limit() != 3 {
		t.Errorf("a fixed --jobs changed: %d", fixed.Limit())
	}
}

func TestParseJobs(t *testing.T) {
	for in, want := range map[string]Jobs{"auto": {Auto: true}, "1": {N: 1}, " 4 ": {N: 4}} {
		if got, err := ParseJobs(in); err != nil || got != want {
			t.Errorf("ParseJobs(%q) = %+v, %v", in, got, err)
		}
	}
	for _, in := range []string{"0", "-1", "two", ""} {
		if _, err := ParseJobs(in); err == nil || !strings.Contains(err.Error(), "--jobs") {
			t.Errorf("ParseJobs(%q): %v", in, err)
		}
	}
	if s := fmt.Sprint(Jobs{}, Jobs{N: 3}, Jobs{Auto: true}); s != "1 3 auto" {
		t.Errorf("String: %s", s)
	}
}
