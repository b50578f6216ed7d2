package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

func TestEndingErr(t *testing.T) {
	for _, tc := range []struct {
		e    Ending
		want string
	}{
		{Ending{Runs: 6, Done: 6}, ""},
		{Ending{}, ""},
		{Ending{Runs: 6, Done: 6, Failed: 1}, "1 of 6 runs failed and are left out of the statistics; the same command with --out D retries them"},
		{Ending{Failed: 2}, "2 runs failed and are left out of the statistics; the same command with --out D retries them"},
		{Ending{Runs: 6, Done: 2, Stopped: true, Failed: 1}, "stopped after 2 of 6 runs; the same command with --out D resumes"},
		{Ending{Stopped: true}, "stopped; the same command with --out D resumes"},
		{Ending{Runs: 6, Done: 3, DiskFull: "5 GB free", Stopped: true}, "stopped after 3 of 6 runs: 5 GB free; free some space and the same command with --out D resumes"},
		{Ending{DiskFull: "5 GB free"}, "stopped: 5 GB free; free some space and the same command with --out D resumes"},
		{Ending{Runs: 6, GaveUp: "5 runs in a row failed", DiskFull: "x", Failed: 5}, "gave up: 5 runs in a row failed"},
	} {
		err := tc.e.Err("D")
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}

// fakeJob records the stages a Session calls and ends as told.
type fakeJob struct {
	prepareErr, execErr, reportErr error
	end                            Ending
	calls                          []string
}

func (j *fakeJob) WritePlan(w io.Writer, dir string, _ Options) error {
	j.calls = append(j.calls, "plan")
	_, err := fmt.Fprintf(w, "the plan of %s\n", dir)
	return err
}

func (j *fakeJob) Prepare(log io.Writer, dir string, _ Options) ([]string, error) {
	j.calls = append(j.calls, "prepare")
	fmt.Fprintln(log, "before")
	return []string{"note 1", "note 2"}, j.prepareErr
}

func (j *fakeJob) Execute(context.Context, string, Options) (Ending, error) {
	j.calls = append(j.calls, "execute")
	return j.end, j.execErr
}

func (j *fakeJob) Report(w io.Writer, _ string) error {
	j.calls = append(j.calls, "report")
	fmt.Fprintln(w, "the report")
	return j.reportErr
}

// A session prepares, says where it writes, executes, reports also after
// a stop or an error, and ends with the job's ending; a prepare that fails
// or a directory with another plan stops it before the report.
func TestSessionStages(t *testing.T) {
	broken := errors.New("broken")
	for _, tc := range []struct {
		name      string
		job       fakeJob
		wantCalls string
		wantErr   string
		wantLog   string
	}{
		{"ok", fakeJob{end: Ending{Runs: 2, Done: 2, Notes: []string{"after"}}}, "prepare execute report", "",
			"before\nx: writing to D (the same command with --out D resumes it)\nx: note 1\nx: note 2\nx: after\n"},
		{"stopped", fakeJob{end: Ending{Runs: 2, Done: 1, Stopped: true}}, "prepare execute report", "stopped after 1 of 2 runs", ""},
		{"prepare fails", fakeJob{prepareErr: broken}, "prepare", "broken", "before\n"},
		{"another plan", fakeJob{execErr: fmt.Errorf("preset p: %w", ErrPlanChanged)}, "prepare execute", "different sweep", ""},
		{"execute fails", fakeJob{execErr: broken, reportErr: errors.New("no table"), end: Ending{Notes: []string{"unsaid"}}}, "prepare execute report", "broken\nno table", ""},
		{"report fails", fakeJob{reportErr: broken}, "prepare execute report", "broken", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, log bytes.Buffer
			s := Session{Name: "x", Dir: "D", Out: &out, Options: Options{Progress: &log}}
			err := s.Run(context.Background(), &tc.job)
			if got := strings.Join(tc.job.calls, " "); got != tc.wantCalls {
				t.Errorf("stages %q, want %q", got, tc.wantCalls)
			}
			if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
			if tc.wantLog != "" && log.String() != tc.wantLog {
				t.Errorf("log:\n%s\nwant:\n%s", log.String(), tc.wantLog)
			}
			if strings.Contains(log.String(), "unsaid") {
				t.Errorf("the notes of a session that failed were written:\n%s", log.String())
			}
			if reported := strings.Contains(tc.wantCalls, "report"); strings.Contains(out.String(), "the report") != reported {
				t.Errorf("out %q; report stage called: %v", out.String(), reported)
			}
		})
	}
	var out bytes.Buffer
	j := &fakeJob{}
	if err := (&Session{Dir: "D", Out: &out}).DryRun(j); err != nil || out.String() != "the plan of D\n" || len(j.calls) != 1 {
		t.Errorf("dry run: %v, %q, stages %v", err, out.String(), j.calls)
	}
}

// A sweep run by a session: a failed run is named after the report and
// fails the session with the count; the same session again does only the
// failed run; a stop after the first run says how far it got.
func TestPlanJobSession(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	plan := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2, Settings: []config.Setting{{Key: "link.trace", Value: "none"}}})
	run := func(f *sweeptest.Runner, stop chan struct{}) (out, log string, err error) {
		var o, l bytes.Buffer
		s := Session{Name: "sweep", Dir: dir, Out: &o, Options: Options{Runner: f.Run, Progress: &l, Stop: stop}}
		err = s.Run(context.Background(), &PlanJob{Plan: plan})
		return o.String(), l.String(), err
	}
	f := &sweeptest.Runner{Fail: func(_ config.Config, run string) bool { return run == "p02-r1" }, FailError: "server exited"}
	out, log, err := run(f, nil)
	if err == nil || err.Error() != "1 of 4 runs failed and are left out of the statistics; the same command with --out "+dir+" retries them" {
		t.Errorf("error %v", err)
	}
	if !strings.Contains(log, "sweep: writing to "+dir) || !strings.Contains(log, "sweep: expected disk use: ") || !strings.Contains(log, "sweep: run p02-r1 failed: server exited") {
		t.Errorf("log:\n%s", log)
	}
	if !strings.Contains(out, "results: "+filepath.Join(dir, "sweep.csv")) {
		t.Errorf("out:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Error(err)
	}

	again := &sweeptest.Runner{}
	if _, log, err := run(again, nil); err != nil || len(again.Calls()) != 1 || !strings.Contains(log, "3 already done") {
		t.Errorf("resume: %v after %v\n%s", err, again.Calls(), log)
	}

	dir = filepath.Join(t.TempDir(), "s")
	stop := make(chan struct{})
	first := &sweeptest.Runner{During: func(n int, _ string) {
		if n == 1 {
			close(stop)
		}
	}}
	if _, _, err := run(first, stop); err == nil || !strings.HasPrefix(err.Error(), "stopped after 1 of 4 runs;") {
		t.Errorf("stop: %v after %v", err, first.Calls())
	}
}

func TestDirName(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Axes: axes(t, "dc.batch=25,100")}, "dc.batch"},
		{Spec{Axes: axes(t, "link.bw_ratio+dc.split=1:1,2:1", "link.loss=0,1%")}, "link.bw_ratio_dc.split_link.loss"},
		{Spec{}, "repeat"},
	} {
		if got := DirName(testPlan(t, tc.spec)); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.spec.Axes, got, tc.want)
		}
	}
}
