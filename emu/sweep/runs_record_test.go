package sweep

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// tableJSON is what a table says of its points and runs, to compare two
// aggregations.
func tableJSON(t *testing.T, tab *results.SweepTable) string {
	t.Helper()
	b, err := json.Marshal(struct {
		Rows    []results.SweepRow
		Runs    []results.RunResult
		Metrics []string
	}{tab.Rows, tab.Runs, tab.Metrics})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A sweep whose run directories are lost aggregates from its runs.csv to
// the same table, and a resumed sweep runs again only what did not end ok.
func TestRecordStandsForLostRunDirectories(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100,500"), Repeat: 2})
		dir := prepared(t, p)
		d := &degradeFirst{n: map[string]int{"p02-r1": -1, "p03-r2": 1}}
		r := &timedRunner{took: 5 * time.Second, degrade: d.degrade}
		r.f.Fail = func(_ config.Config, run string) bool { return run == "p01-r2" }
		r.f.Edit = func(cfg config.Config, s *results.Summary) {
			// A goodput that needs every digit to read back the same.
			s.Flows[0].GoodputMbps += 1.0 / 3
		}
		if _, err := Execute(context.Background(), dir, p, Options{Runner: r.run, Reruns: new(1)}); err != nil {
			t.Fatal(err)
		}
		before, err := Finish(dir, AggregateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, results.RunsFile)); err != nil {
			t.Fatalf("Finish wrote no record: %v", err)
		}
		for _, sub := range []string{results.RunsDir, results.DegradedDir} {
			if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
				t.Fatal(err)
			}
		}
		after, err := Aggregate(dir, p, AggregateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := tableJSON(t, before), tableJSON(t, after); a != b {
			t.Fatalf("from the record:\n%s\nfrom the run directories:\n%s", b, a)
		}
		byID := map[string]results.RunResult{}
		for _, rr := range after.Runs {
			byID[rr.ID] = rr
		}
		if rr := byID["p02-r1"]; rr.Status != results.StatusDegraded || rr.Attempts != 2 || !strings.Contains(rr.Error, "emulation degraded") {
			t.Errorf("degraded run from the record: %+v", rr)
		}
		if rr := byID["p03-r2"]; rr.Status != results.StatusOK || rr.Attempts != 2 {
			t.Errorf("run ok at its second attempt, from the record: %+v", rr)
		}
		if rr := byID["p01-r2"]; rr.Status != results.StatusFailed || rr.Error != sweeptest.FailError {
			t.Errorf("failed run from the record: %+v", rr)
		}
		if kept, err := Aggregate(dir, p, AggregateOptions{KeepDegraded: true}); err != nil {
			t.Fatal(err)
		} else if st := kept.Rows[1].Stats[results.MetricGoodput]; st.N != 2 {
			t.Errorf("degraded run kept from the record: n %d, want 2", st.N)
		}
		if e := ElapsedIn(dir, p); e.Runs != 5 {
			t.Errorf("ElapsedIn counts %d recorded runs, want the 5 that ended ok", e.Runs)
		}
		if left := Remaining(dir, p, p.Runs); len(left) != 1 || left[0].ID != "p01-r2" {
			t.Errorf("Remaining %v, want the failed run alone", left)
		}

		again := &timedRunner{took: 5 * time.Second}
		out, err := Execute(context.Background(), dir, p, Options{Runner: again.run, Reruns: new(3)})
		if err != nil {
			t.Fatal(err)
		}
		if calls := again.f.Calls(); !slices.Equal(calls, []string{"p01-r2"}) || out.Skipped != 5 {
			t.Fatalf("resumed from the record: ran %v, skipped %d; want p01-r2 alone, 5", calls, out.Skipped)
		}
		done, err := Finish(dir, AggregateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rw := done.Rows[0]; rw.OK != 2 || rw.Failed != 0 {
			t.Errorf("p01 after the rerun: %+v", rw)
		}
		// The record now lists the new run too, so it stands alone again.
		if err := os.RemoveAll(filepath.Join(dir, results.RunsDir)); err != nil {
			t.Fatal(err)
		}
		if final, err := Aggregate(dir, p, AggregateOptions{}); err != nil {
			t.Fatal(err)
		} else if a, b := tableJSON(t, done), tableJSON(t, final); a != b {
			t.Errorf("second record differs:\n%s\n%s", b, a)
		}
	})
}

// What a directory holds of a run wins over the record's row for it.
func TestRecordGivesWayToRunDirectories(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,500"), Repeat: 1})
	dir := prepared(t, p)
	if _, err := Execute(context.Background(), dir, p, Options{Runner: (&sweeptest.Runner{}).Run}); err != nil {
		t.Fatal(err)
	}
	want, err := Aggregate(dir, p, AggregateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	edited := want.Runs
	edited[0].Metrics = map[string]float64{results.MetricGoodput: 999}
	var b strings.Builder
	if err := results.WriteRunsCSV(&b, edited, []string{results.MetricGoodput}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.RunsFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Aggregate(dir, p, AggregateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := got.Rows[0].Stats[results.MetricGoodput].Mean; g == 999 {
		t.Errorf("the record's row replaced the run directory's figure")
	}
}

// A plan replaced with --force takes the record with it; a record that
// does not parse fails the aggregation and the sweep, naming its line.
func TestRecordReplacedOrBroken(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,500"), Repeat: 1})
	dir := prepared(t, p)
	if _, err := Execute(context.Background(), dir, p, Options{Runner: (&sweeptest.Runner{}).Run}); err != nil {
		t.Fatal(err)
	}
	if _, err := Finish(dir, AggregateOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, results.RunsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[2] = strings.Replace(lines[2], ",ok,", ",fine,", 1)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{
		"Aggregate": func() error { _, err := Aggregate(dir, p, AggregateOptions{}); return err }(),
		"Execute": func() error {
			_, err := Execute(context.Background(), dir, p, Options{Runner: (&sweeptest.Runner{}).Run})
			return err
		}(),
	} {
		if err == nil || !strings.Contains(err.Error(), "runs.csv:3: status: \"fine\"") {
			t.Errorf("%s with a broken record: %v", what, err)
		}
	}
	other := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,150"), Repeat: 1})
	if _, err := Prepare(dir, other, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the replaced plan's record is still there: %v", err)
	}
}
