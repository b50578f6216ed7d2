package sweep

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// Two shards run separately and merged give the same sweep.csv as one run
// of the whole plan.
func TestShardsMergeToTheWholeSweep(t *testing.T) {
	spec := Spec{Scenario: "fairness", Axes: axes(t, "dc.batch=25,100,500", "dc.split=1:1,9:1"), Repeat: 3}
	whole := t.TempDir()
	run := func(dir string, sh Shard) *Outcome {
		p := testPlan(t, spec) // each machine plans for itself
		if _, err := Prepare(dir, p, false); err != nil {
			t.Fatal(err)
		}
		f := &sweeptest.Runner{}
		out, err := Execute(context.Background(), dir, p, Options{Runner: f.Run, Shard: sh})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	run(whole, Shard{})
	if _, err := Finish(whole, AggregateOptions{}); err != nil {
		t.Fatal(err)
	}
	a, b := t.TempDir(), t.TempDir()
	oa, ob := run(a, Shard{1, 2}), run(b, Shard{2, 2})
	if oa.OK+ob.OK != 12 || oa.OK == 0 || ob.OK == 0 {
		t.Fatalf("shards did %d and %d runs of 12", oa.OK, ob.OK)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	res, err := Merge(merged, []string{a, b}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Copied != 12 || len(res.Missing) != 0 || len(res.Duplicates) != 0 {
		t.Errorf("merge: %+v", res)
	}
	if _, err := Finish(merged, AggregateOptions{}); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(whole, results.CSVFile))
	got, _ := os.ReadFile(filepath.Join(merged, results.CSVFile))
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("merged sweep.csv differs from the whole sweep's:\n%s\nwant\n%s", got, want)
	}
	wantHTML, _ := os.ReadFile(filepath.Join(whole, results.ReportFile))
	gotHTML, _ := os.ReadFile(filepath.Join(merged, results.ReportFile))
	if !bytes.Equal(gotHTML, wantHTML) {
		t.Error("merged report.html differs from the whole sweep's")
	}

	// Merging into one of the shards works too, and a second merge finds
	// everything present.
	if res, err := Merge(a, []string{a, b}, false); err != nil || res.Copied != ob.OK || res.Present != oa.OK {
		t.Errorf("merge into a shard: %+v %v", res, err)
	}
	if res, err := Merge(merged, []string{a, b}, false); err != nil || res.Present != 12 || res.Copied != 0 {
		t.Errorf("second merge: %+v %v", res, err)
	}
}

func TestMergeReportsGapsAndRefusesOtherSweeps(t *testing.T) {
	spec := Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2}
	a := t.TempDir()
	p := testPlan(t, spec)
	if _, err := Prepare(a, p, false); err != nil {
		t.Fatal(err)
	}
	f := &sweeptest.Runner{}
	if _, err := Execute(context.Background(), a, p, Options{Runner: f.Run, Shard: Shard{1, 2}}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := Merge(out, []string{a}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Copied != 2 || len(res.Missing) != 2 {
		t.Errorf("merge of one shard: %+v", res)
	}
	other := t.TempDir()
	if _, err := Prepare(other, testPlan(t, Spec{Axes: axes(t, "dc.batch=25,150"), Repeat: 2}), false); err != nil {
		t.Fatal(err)
	}
	_, err = Merge(t.TempDir(), []string{a, other}, false)
	if err == nil || !strings.Contains(err.Error(), "different sweeps") || !strings.Contains(err.Error(), other) {
		t.Errorf("merge of different sweeps: %v", err)
	}
	if _, err := Merge(t.TempDir(), []string{t.TempDir()}, false); err == nil || !strings.Contains(err.Error(), results.PlanFile) {
		t.Errorf("merge of a non-sweep: %v", err)
	}
}
