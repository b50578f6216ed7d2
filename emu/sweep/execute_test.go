package sweep

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

func prepared(t *testing.T, p *results.Plan) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := Prepare(dir, p, false); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestExecuteThenResume(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100,500"), Repeat: 2})
	dir := prepared(t, p)
	f := &sweeptest.Runner{}
	out, err := Execute(context.Background(), dir, p, Options{Runner: f.Run})
	if err != nil {
		t.Fatal(err)
	}
	if out.OK != 6 || out.Skipped != 0 || !out.Complete() || len(out.Failures) != 0 {
		t.Fatalf("first pass: %+v", out)
	}
	if got := f.Calls(); !slices.Equal(got, []string{"p01-r1", "p02-r1", "p03-r1", "p01-r2", "p02-r2", "p03-r2"}) {
		t.Errorf("runs done in order %v", got)
	}
	for _, r := range p.Runs {
		s, err := results.ReadSummary(filepath.Join(dir, results.RunsDir, r.ID))
		if err != nil || s.Seed != r.Seed || s.Status != results.StatusOK {
			t.Errorf("%s: summary %+v, %v", r.ID, s, err)
		}
	}

	// The same command again does nothing.
	f2 := &sweeptest.Runner{}
	out, err = Execute(context.Background(), dir, p, Options{Runner: f2.Run})
	if err != nil || out.Skipped != 6 || out.OK != 0 || len(f2.Calls()) != 0 {
		t.Fatalf("second pass: %+v %v, runner called for %v", out, err, f2.Calls())
	}

	// A lost run and a failed one are redone, and only they.
	if err := os.RemoveAll(filepath.Join(dir, results.RunsDir, "p02-r1")); err != nil {
		t.Fatal(err)
	}
	rewriteSummary(t, dir, "p03-r2", func(s *results.Summary) { s.Status, s.Error = results.StatusFailed, "boom" })
	// A run of another plan (other seed) in the right place is redone too.
	rewriteSummary(t, dir, "p01-r1", func(s *results.Summary) { s.Seed++ })
	f3 := &sweeptest.Runner{}
	out, err = Execute(context.Background(), dir, p, Options{Runner: f3.Run})
	if err != nil || out.Skipped != 3 || out.OK != 3 {
		t.Fatalf("third pass: %+v %v", out, err)
	}
	if got := f3.Calls(); !slices.Equal(got, []string{"p01-r1", "p02-r1", "p03-r2"}) {
		t.Errorf("third pass redid %v", got)
	}
}

func rewriteSummary(t *testing.T, dir, run string, change func(*results.Summary)) {
	t.Helper()
	rd := filepath.Join(dir, results.RunsDir, run)
	s, err := results.ReadSummary(rd)
	if err != nil {
		t.Fatal(err)
	}
	change(s)
	if err := results.WriteJSON(filepath.Join(rd, "summary.json"), s); err != nil {
		t.Fatal(err)
	}
}

func TestFailedRunsAreRecorded(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,500"), Repeat: 2})
	dir := prepared(t, p)
	// Runs of batch 500 fail; a runner that returns no summary at all is
	// covered by p01-r2 failing before it writes anything.
	f := &sweeptest.Runner{Fail: func(c config.Config, _ string) bool { return c.DC.Sched.Batch == 500 }}
	runner := func(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
		if filepath.Base(out) == "p01-r2" {
			return nil, errors.New("network: add veth: file exists")
		}
		return f.Run(ctx, cfg, out)
	}
	out, err := Execute(context.Background(), dir, p, Options{Runner: runner})
	if err != nil {
		t.Fatal(err)
	}
	if out.OK != 1 || len(out.Failures) != 3 || out.Complete() {
		t.Fatalf("outcome %+v", out)
	}
	s, err := results.ReadSummary(filepath.Join(dir, results.RunsDir, "p01-r2"))
	if err != nil || s.Status != results.StatusFailed || !strings.Contains(s.Error, "add veth") || s.Seed != p.Runs[2].Seed {
		t.Fatalf("the sweep did not record the failure: %+v, %v", s, err)
	}
	tab, err := Aggregate(dir, p, AggregateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows[0].OK != 1 || tab.Rows[0].Failed != 1 || tab.Rows[1].OK != 0 || tab.Rows[1].Failed != 2 {
		t.Errorf("counts %+v %+v", tab.Rows[0], tab.Rows[1])
	}
	if st := tab.Rows[1].Stats[results.MetricGoodput]; st.N != 0 {
		t.Errorf("failed runs entered the statistics: %+v", st)
	}
}

func TestGiveUpAfterRepeatedFailures(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,50,100,150"), Repeat: 3})
	dir := prepared(t, p)
	f := &sweeptest.Runner{Fail: func(config.Config, string) bool { return true }}
	out, err := Execute(context.Background(), dir, p, Options{Runner: f.Run, GiveUpAfter: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Calls()) != 3 || out.GaveUp == "" || !strings.Contains(out.GaveUp, "client exited") {
		t.Errorf("ran %d runs, outcome %+v", len(f.Calls()), out)
	}
}

// The first Ctrl-C lets the current run finish and starts no other.
func TestStopAfterCurrentRun(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2})
	dir := prepared(t, p)
	stop := make(chan struct{})
	f := &sweeptest.Runner{}
	f.During = func(int, string) {
		if len(f.Calls()) == 2 {
			close(stop)
		}
	}
	out, err := Execute(context.Background(), dir, p, Options{Runner: f.Run, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Stopped || out.OK != 2 || len(f.Calls()) != 2 {
		t.Errorf("outcome %+v after %v", out, f.Calls())
	}
}

// The second Ctrl-C interrupts the current run: it is recorded as
// interrupted and redone next time.
func TestInterruptCurrentRun(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2})
	dir := prepared(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &sweeptest.Runner{}
	f.During = func(int, string) {
		if len(f.Calls()) == 3 {
			cancel()
		}
	}
	out, err := Execute(ctx, dir, p, Options{Runner: f.Run})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Interrupted || out.OK != 2 || len(out.Failures) != 1 || out.Failures[0].Status != results.StatusInterrupted {
		t.Fatalf("outcome %+v", out)
	}
	f2 := &sweeptest.Runner{}
	out, err = Execute(context.Background(), dir, p, Options{Runner: f2.Run})
	if err != nil || !slices.Equal(f2.Calls(), []string{"p01-r2", "p02-r2"}) || !out.Complete() {
		t.Errorf("resume after interrupt ran %v: %+v %v", f2.Calls(), out, err)
	}
}

func TestPrepareRefusesAnotherPlan(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2})
	dir := prepared(t, p)
	f := &sweeptest.Runner{}
	if _, err := Execute(context.Background(), dir, p, Options{Runner: f.Run}); err != nil {
		t.Fatal(err)
	}
	same := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2, Preset: "renamed"})
	if _, err := Prepare(dir, same, false); err != nil {
		t.Errorf("the same plan was refused: %v", err)
	}
	other := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2,
		Settings: []config.Setting{{Key: "flow.size", Value: "2MB"}}})
	_, err := Prepare(dir, other, false)
	if !errors.Is(err, ErrPlanChanged) || !strings.Contains(err.Error(), "flows.0.size=100MB, now 2MB") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("changed plan: %v", err)
	}
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 3}, "2 repeats, now 3"},
		{Spec{Axes: axes(t, "dc.batch=25,150"), Repeat: 2}, "varied dc.batch=[25 100], now dc.batch=[25 150]"},
		{Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2, Seed: 9}, "base seed 1, now 9"},
	} {
		if _, err := Prepare(dir, testPlan(t, tc.spec), false); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	// --force replaces the plan; the old runs (other flow size, same seeds)
	// no longer count and are redone.
	if _, err := Prepare(dir, other, true); err != nil {
		t.Fatal(err)
	}
	f2 := &sweeptest.Runner{}
	out, err := Execute(context.Background(), dir, other, Options{Runner: f2.Run})
	if err != nil || out.Skipped != 0 || out.OK != 4 {
		t.Errorf("after --force: %+v %v", out, err)
	}
}

// A fidelity threshold changed on resume (here a looser
// thread_mean_wait, as on a slower machine) is not another sweep: the
// runs already done are kept with their verdicts, plan.json takes the new
// threshold, and Prepare says what changed. Shards judged by different
// thresholds merge, with a note.
func TestPrepareResumesAcrossThresholds(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2})
	dir := prepared(t, p)
	f := &sweeptest.Runner{}
	if _, err := Execute(context.Background(), dir, p, Options{Runner: f.Run}); err != nil {
		t.Fatal(err)
	}
	looser := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2,
		Settings: []config.Setting{{Key: "fidelity.thread_mean_wait", Value: "80µs"}}})
	if d := PlanDiff(p, looser); d != "" {
		t.Fatalf("PlanDiff: %s", d)
	}
	note, err := Prepare(dir, looser, false)
	if err != nil || !strings.Contains(note, "fidelity.thread_mean_wait 50µs → 80µs") {
		t.Fatalf("Prepare: note %q, %v", note, err)
	}
	if got, err := results.ReadPlan(dir); err != nil || got.Base["fidelity.thread_mean_wait"] != "80µs" {
		t.Fatalf("plan.json after the resume: %v, %v", got.Base["fidelity.thread_mean_wait"], err)
	}
	if note, err := Prepare(dir, looser, false); note != "" || err != nil {
		t.Errorf("the same plan again: note %q, %v", note, err)
	}
	again := &sweeptest.Runner{}
	out, err := Execute(context.Background(), dir, looser, Options{Runner: again.Run})
	if err != nil || out.Skipped != 4 || len(again.Calls()) != 0 {
		t.Errorf("resumed with a new threshold: ran %v: %+v %v", again.Calls(), out, err)
	}

	other := t.TempDir()
	if _, err := Prepare(other, looser, false); err != nil {
		t.Fatal(err)
	}
	res, err := Merge(filepath.Join(t.TempDir(), "merged"), []string{dir, other}, false)
	if err != nil || len(res.Notes) != 0 || res.Copied != 4 {
		t.Errorf("merge of shards with one threshold: %+v %v", res, err)
	}
	if _, err := Prepare(other, p, false); err != nil {
		t.Fatal(err)
	}
	res, err = Merge(filepath.Join(t.TempDir(), "merged"), []string{dir, other}, false)
	if err != nil || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "fidelity.thread_mean_wait 80µs → 50µs") {
		t.Errorf("merge of shards with two thresholds: %+v %v", res, err)
	}
}

func TestProgressLines(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2})
	dir := prepared(t, p)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Each run takes 10 s on the fake clock, and says so: 9.7 s of flows
	// and RunOverhead.
	f := &sweeptest.Runner{DurationS: 9.7}
	f.During = func(int, string) { clock = clock.Add(10 * time.Second) }
	// One run already done: the progress counts it, and the estimate
	// follows how long it took.
	if _, err := Execute(context.Background(), dir, p, Options{Runner: f.Run, Shard: Shard{1, 4}}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := Execute(context.Background(), dir, p, Options{Runner: f.Run, Progress: &b, Now: func() time.Time { return clock }}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	// Every estimate follows how long the runs took, the earlier
	// session's too (10 s each).
	want := []string{
		"sweep: 2 points × 2 repeats = 4 runs: 3 to do, 1 already done; 1 run at once: expected wall time 30s (the model scaled by the 1 run done: ",
		"[2/4] p02-r1: dc.batch=100, seed ",
		"[2/4] p02-r1 ok in 10s: goodput ",
		"(ETA 20s)",
		"[3/4] p01-r2: dc.batch=25, seed ",
		"[3/4] p01-r2 ok in 10s",
		"(ETA 10s)",
		"[4/4] p02-r2: dc.batch=100",
	}
	text := b.String()
	pos := 0
	for _, w := range want {
		i := strings.Index(text[pos:], w)
		if i < 0 {
			t.Fatalf("progress lacks %q after position %d:\n%s", w, pos, text)
		}
		pos += i
	}
	if len(lines) != 7 {
		t.Errorf("%d lines:\n%s", len(lines), text)
	}
}
