package sweep

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// degradeFirst degrades the first n attempts of the runs it names (all
// attempts: n < 0), and records each attempt's concurrency.
type degradeFirst struct {
	n   map[string]int
	mu  sync.Mutex
	got map[string][]int // by run: the most runs at once of each attempt
}

func (d *degradeFirst) degrade(id string, active int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.got == nil {
		d.got = map[string][]int{}
	}
	d.got[id] = append(d.got[id], active)
	n, ok := d.n[id]
	return ok && (n < 0 || len(d.got[id]) <= n)
}

// wantKept checks the attempts of run id kept in dir's degraded
// directory, by number, and whether runs/<id> holds a degraded ok run.
func wantKept(t *testing.T, dir string, p *results.Plan, id string, want []int, lastBad bool) {
	t.Helper()
	r := runOf(p, id)
	var got []int
	for k := 1; k < 10; k++ {
		if _, ok := okRun(keptDir(dir, id, k), p, r); ok {
			got = append(got, k)
		}
	}
	sum, ok := okRun(filepath.Join(dir, results.RunsDir, id), p, r)
	if !ok {
		t.Fatalf("runs/%s holds no ok run", id)
	}
	if _, bad := degraded(sum); !slices.Equal(got, want) || bad != lastBad {
		t.Errorf("%s: kept attempts %v, the last degraded %v; want %v, %v", id, got, bad, want, lastBad)
	}
}

// row is the aggregated row of point id.
func row(t *testing.T, dir string, p *results.Plan, point string, keep bool) results.SweepRow {
	t.Helper()
	tab, err := Aggregate(dir, p, AggregateOptions{KeepDegraded: keep})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tab.Rows {
		if r.ID == point {
			return r
		}
	}
	t.Fatalf("no point %s", point)
	return results.SweepRow{}
}

// Degraded three times with two reruns: final, every attempt kept (the
// first where one rerun kept it), counted degraded once. A resume with the
// same reruns does nothing; one with more makes the attempts it allows.
func TestRerunsDegradedThriceIsFinal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,500"), Repeat: 2})
		dir := prepared(t, p)
		d := &degradeFirst{n: map[string]int{"p02-r1": -1}}
		r := &timedRunner{took: 5 * time.Second, degrade: d.degrade}
		var log strings.Builder
		out, err := Execute(context.Background(), dir, p, Options{Runner: r.run, Reruns: new(2), Progress: &log})
		if err != nil {
			t.Fatal(err)
		}
		if out.Reruns != 2 || out.OK != 4 || !slices.Equal(out.Degraded, []string{"p02-r1"}) || !out.Complete() || len(d.got["p02-r1"]) != 3 {
			t.Fatalf("outcome %+v, attempts %v", out, d.got)
		}
		wantKept(t, dir, p, "p02-r1", []int{1, 2}, true)
		if _, err := os.Stat(filepath.Join(dir, results.DegradedDir, "p02-r1")); err != nil {
			t.Errorf("the first attempt is not where one rerun keeps it: %v", err)
		}
		for _, w := range []string{
			"[attempt 1] p02-r1 degraded in 5s: ",
			"running it again (2 attempts left)",
			"[attempt 2] p02-r1: dc.batch=500, seed ",
			"(the first was degraded; 1 more attempt if degraded)",
			"[attempt 2] p02-r1 degraded in 5s: ",
			"running it again (1 attempt left)",
			"(both before were degraded; the last attempt)",
			"p02-r1 degraded in 5s: ",
			"degraded in all 3 attempts, left out of the statistics (--keep-degraded keeps it) (1 degraded",
		} {
			if !strings.Contains(log.String(), w) {
				t.Errorf("progress lacks %q:\n%s", w, log.String())
			}
		}
		if rw := row(t, dir, p, "p02", false); rw.OK != 1 || rw.Degraded != 1 || rw.Stats[results.MetricGoodput].N != 1 {
			t.Errorf("row %+v", rw)
		}
		if st := row(t, dir, p, "p02", true).Stats[results.MetricGoodput]; st.N != 2 {
			t.Errorf("kept: %+v", st)
		}
		if e := ElapsedIn(dir, p); e.Runs != 4 {
			t.Errorf("ElapsedIn counts %d runs", e.Runs)
		}

		same := &timedRunner{took: 5 * time.Second}
		out, err = Execute(context.Background(), dir, p, Options{Runner: same.run, Reruns: new(2)})
		if err != nil || out.Skipped != 4 || len(same.f.Calls()) != 0 {
			t.Errorf("resume redid %v: %+v %v", same.f.Calls(), out, err)
		}
		fewer := &timedRunner{took: 5 * time.Second}
		out, err = Execute(context.Background(), dir, p, Options{Runner: fewer.run})
		if err != nil || out.Skipped != 4 || len(fewer.f.Calls()) != 0 {
			t.Errorf("resume with one rerun redid %v: %+v %v", fewer.f.Calls(), out, err)
		}

		// Three reruns allow a fourth attempt, which keeps up.
		more := &timedRunner{took: 5 * time.Second}
		out, err = Execute(context.Background(), dir, p, Options{Runner: more.run, Reruns: new(3)})
		if err != nil || out.Skipped != 3 || out.OK != 1 || len(out.Degraded) != 0 || !slices.Equal(more.f.Calls(), []string{"p02-r1"}) {
			t.Errorf("resume with three reruns ran %v: %+v %v", more.f.Calls(), out, err)
		}
		wantKept(t, dir, p, "p02-r1", []int{1, 2, 3}, false)
		if rw := row(t, dir, p, "p02", false); rw.OK != 2 || rw.Degraded != 0 {
			t.Errorf("row %+v", rw)
		}
	})
}

// Degraded twice, then ok, with two reruns: the run ends ok and counts.
func TestRerunsDegradedTwiceThenOK(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,500"), Repeat: 2})
		dir := prepared(t, p)
		d := &degradeFirst{n: map[string]int{"p01-r2": 2}}
		r := &timedRunner{took: 5 * time.Second, degrade: d.degrade}
		out, err := Execute(context.Background(), dir, p, Options{Runner: r.run, Reruns: new(2), Jobs: Jobs{N: 2}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Reruns != 2 || out.OK != 4 || len(out.Degraded) != 0 || !out.Complete() || len(d.got["p01-r2"]) != 3 {
			t.Fatalf("outcome %+v, attempts %v", out, d.got)
		}
		wantKept(t, dir, p, "p01-r2", []int{1, 2}, false)
		if rw := row(t, dir, p, "p01", false); rw.OK != 2 || rw.Degraded != 0 || rw.Stats[results.MetricGoodput].N != 2 {
			t.Errorf("row %+v", rw)
		}
	})
}

// A degraded run is made again after the runs queued before it (noise
// comes in bursts); a sweep stopped between its second and third attempt
// makes the third when resumed with two reruns; resumed with one, the
// second (the last the new limit allows) is the run's result.
func TestRerunsResumeBetweenAttempts(t *testing.T) {
	for _, tc := range []struct {
		reruns   int
		calls    []string
		kept     []int
		degraded int
	}{
		{2, []string{"p01-r1"}, []int{1, 2}, 0},
		{1, nil, []int{1}, 1},
	} {
		synctest.Test(t, func(t *testing.T) {
			p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,500"), Repeat: 1})
			dir := prepared(t, p)
			stop := make(chan struct{})
			d := &degradeFirst{n: map[string]int{"p01-r1": 2}}
			r := &timedRunner{took: time.Second, degrade: d.degrade}
			r.f.During = func(n int, _ string) {
				if n == 3 { // p01-r1's second attempt, after p02-r1
					close(stop)
				}
			}
			out, err := Execute(context.Background(), dir, p, Options{Runner: r.run, Reruns: new(2), Stop: stop})
			if err != nil || !out.Stopped || out.Reruns != 2 || out.OK != 1 || !slices.Equal(r.f.Calls(), []string{"p01-r1", "p02-r1", "p01-r1"}) {
				t.Fatalf("ran %v: %+v %v", r.f.Calls(), out, err)
			}
			if _, err := os.Stat(filepath.Join(dir, results.RunsDir, "p01-r1")); err == nil {
				t.Fatal("runs/p01-r1 holds a run; both attempts should be kept")
			}

			again := &timedRunner{took: time.Second}
			out, err = Execute(context.Background(), dir, p, Options{Runner: again.run, Reruns: new(tc.reruns)})
			if err != nil || !out.Complete() || !slices.Equal(again.f.Calls(), tc.calls) {
				t.Fatalf("--reruns %d: resume ran %v: %+v %v", tc.reruns, again.f.Calls(), out, err)
			}
			wantKept(t, dir, p, "p01-r1", tc.kept, tc.degraded == 1)
			if rw := row(t, dir, p, "p01", false); rw.Degraded != tc.degraded || rw.OK != 1-tc.degraded {
				t.Errorf("--reruns %d: row %+v", tc.reruns, rw)
			}
		})
	}
}

// A run left degraded by a one-rerun sweep (attempt 1 in degraded/<id>,
// attempt 2 in runs/) gets its third attempt from a resume with two
// reruns, and attempt 2 is kept beside the first.
func TestRerunsResumeOneRerunLayout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,500"), Repeat: 1})
		dir := prepared(t, p)
		d := &degradeFirst{n: map[string]int{"p02-r1": 2}}
		r := &timedRunner{took: time.Second, degrade: d.degrade}
		if out, err := Execute(context.Background(), dir, p, Options{Runner: r.run}); err != nil || !slices.Equal(out.Degraded, []string{"p02-r1"}) {
			t.Fatalf("%+v %v", out, err)
		}
		again := &timedRunner{took: time.Second}
		out, err := Execute(context.Background(), dir, p, Options{Runner: again.run, Reruns: new(2)})
		if err != nil || out.Skipped != 1 || out.OK != 1 || len(out.Degraded) != 0 || !slices.Equal(again.f.Calls(), []string{"p02-r1"}) {
			t.Fatalf("resume ran %v: %+v %v", again.f.Calls(), out, err)
		}
		wantKept(t, dir, p, "p02-r1", []int{1, 2}, false)
	})
}

// No reruns: a degraded first attempt is final and nothing is kept aside;
// a later resume with the default rerun makes the second attempt.
func TestRerunsZeroKeepsTheFirstAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,500"), Repeat: 2})
		dir := prepared(t, p)
		d := &degradeFirst{n: map[string]int{"p02-r1": -1}}
		r := &timedRunner{took: 5 * time.Second, degrade: d.degrade}
		var log strings.Builder
		out, err := Execute(context.Background(), dir, p, Options{Runner: r.run, Reruns: new(0), Progress: &log})
		if err != nil {
			t.Fatal(err)
		}
		if out.Reruns != 0 || !slices.Equal(out.Degraded, []string{"p02-r1"}) || !out.Complete() || len(r.f.Calls()) != 4 {
			t.Fatalf("ran %v: %+v", r.f.Calls(), out)
		}
		if _, err := os.Stat(filepath.Join(dir, results.DegradedDir)); err == nil {
			t.Error("a degraded directory without reruns")
		}
		if strings.Contains(log.String(), "running it again") || !strings.Contains(log.String(), "p02-r1 degraded in 5s: ") {
			t.Errorf("progress:\n%s", log.String())
		}
		if rw := row(t, dir, p, "p02", false); rw.OK != 1 || rw.Degraded != 1 || rw.Stats[results.MetricGoodput].N != 1 {
			t.Errorf("row %+v", rw)
		}
		again := &timedRunner{took: 5 * time.Second}
		out, err = Execute(context.Background(), dir, p, Options{Runner: again.run})
		if err != nil || out.Skipped != 3 || out.OK != 1 || !slices.Equal(again.f.Calls(), []string{"p02-r1"}) {
			t.Errorf("resume with the default ran %v: %+v %v", again.f.Calls(), out, err)
		}
		wantKept(t, dir, p, "p02-r1", []int{1}, false)
		if rw := row(t, dir, p, "p02", false); rw.OK != 2 || rw.Degraded != 0 {
			t.Errorf("row %+v", rw)
		}
	})
}

// With auto, every further attempt of a run degraded beside others runs
// below the lowest concurrency that degraded it, for its whole duration,
// also after an attempt degraded alone: a run degraded whenever it has
// company (and once alone) ends ok alone.
func TestJobsAutoRerunsBelowEveryTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,50,100,150,300,500"), Repeat: 2})
		dir := prepared(t, p)
		d := &degradeFirst{n: map[string]int{"p03-r1": 0}}
		r := &timedRunner{took: 10 * time.Second, cpu: 0.45, degrade: func(id string, active int) bool {
			d.degrade(id, active)
			return id == "p03-r1" && (active > 1 || len(d.got[id]) == 4)
		}}
		out, err := Execute(context.Background(), dir, p, Options{Runner: r.run, Jobs: Jobs{Auto: true}, Cores: 2, CPUTime: r.cpuTime, Reruns: new(5)})
		if err != nil {
			t.Fatal(err)
		}
		// Calibrated at 4 (1.8 / 0.45); one degraded run per concurrency
		// is a stray one, so the limit stays. Which runs are still queued
		// when each attempt starts depends on the order in which runs
		// ending at the same instant are seen, so the attempts' company
		// varies ([4 3 2 1 1], or [4 3 1] once the others are done); the
		// rule does not: every attempt after one degraded beside k runs
		// has fewer than k beside it, and the last one keeps up.
		got := d.got["p03-r1"]
		if out.Jobs != 4 || out.OK != 12 || len(out.Degraded) != 0 || len(got) < 2 {
			t.Fatalf("outcome %+v, p03-r1's attempts at %v at once", out, got)
		}
		lowest := math.MaxInt
		for i, active := range got {
			if active >= lowest {
				t.Errorf("attempt %d of p03-r1 ran with %d at once after one degraded at %d: %v", i+1, active, lowest, got)
			}
			if i < len(got)-1 && active > 1 {
				lowest = min(lowest, active)
			}
		}
	})
}

// Merge takes every kept attempt of a run with it: the merged directory
// resumes like the shard would.
func TestMergeKeepsEveryAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,500"), Repeat: 2})
		a, b := prepared(t, p), prepared(t, p)
		d := &degradeFirst{n: map[string]int{"p01-r1": -1, "p02-r1": 1}}
		r := &timedRunner{took: time.Second, degrade: d.degrade}
		if _, err := Execute(context.Background(), a, p, Options{Runner: r.run, Reruns: new(2), Shard: Shard{1, 2}}); err != nil {
			t.Fatal(err)
		}
		if _, err := Execute(context.Background(), b, p, Options{Runner: r.run, Reruns: new(2), Shard: Shard{2, 2}}); err != nil {
			t.Fatal(err)
		}
		merged := filepath.Join(t.TempDir(), "merged")
		res, err := Merge(merged, []string{a, b}, false)
		if err != nil || res.Copied != 4 || len(res.Failed)+len(res.Missing)+len(res.Duplicates) != 0 {
			t.Fatalf("merge: %+v %v", res, err)
		}
		wantKept(t, merged, p, "p01-r1", []int{1, 2}, true)
		wantKept(t, merged, p, "p02-r1", []int{1}, false)
		if rw := row(t, merged, p, "p01", false); rw.OK != 1 || rw.Degraded != 1 {
			t.Errorf("merged row %+v", rw)
		}
		again := &timedRunner{took: time.Second}
		out, err := Execute(context.Background(), merged, p, Options{Runner: again.run, Reruns: new(2)})
		if err != nil || out.Skipped != 4 || len(again.f.Calls()) != 0 {
			t.Errorf("resume of the merged sweep ran %v: %+v %v", again.f.Calls(), out, err)
		}
		if res, err := Merge(merged, []string{a, b}, false); err != nil || res.Present != 4 {
			t.Errorf("second merge: %+v %v", res, err)
		}
	})
}
