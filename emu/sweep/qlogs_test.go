package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// qlogRunner is a fake runner whose runs also leave a qlog file.
func qlogRunner(f *sweeptest.Runner) Runner {
	return func(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
		sum, err := f.Run(ctx, cfg, out)
		q := filepath.Join(out, filepath.FromSlash(results.QlogFile("dc", "server")))
		if merr := os.MkdirAll(filepath.Dir(q), 0o755); merr != nil {
			return nil, merr
		}
		if werr := os.WriteFile(q, []byte(strings.Repeat("\x1e{\"name\":\"transport:packet_sent\"}\n", 1000)), 0o644); werr != nil {
			return nil, werr
		}
		return sum, err
	}
}

func TestExecuteAppliesTheQlogPolicy(t *testing.T) {
	for _, c := range []struct {
		policy results.QlogPolicy
		want   string // the qlog file left, "" none
	}{
		{"", "dc-server.sqlog.gz"},
		{results.QlogsGzip, "dc-server.sqlog.gz"},
		{results.QlogsKeep, "dc-server.sqlog"},
		{results.QlogsDrop, ""},
	} {
		p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 1})
		dir := prepared(t, p)
		out, err := Execute(context.Background(), dir, p, Options{Runner: qlogRunner(&sweeptest.Runner{}), Qlogs: c.policy})
		if err != nil || !out.Complete() {
			t.Fatalf("%q: %+v, %v", c.policy, out, err)
		}
		for _, r := range p.Runs {
			left, _ := filepath.Glob(filepath.Join(dir, results.RunsDir, r.ID, results.QlogDir, "*"))
			switch {
			case c.want == "" && len(left) != 0, c.want != "" && (len(left) != 1 || filepath.Base(left[0]) != c.want):
				t.Errorf("--qlogs %q: run %s holds %v, want %q", c.policy, r.ID, left, c.want)
			}
		}
	}
}

func TestExecuteRejectsAnUnknownQlogPolicy(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25"), Repeat: 1})
	f := &sweeptest.Runner{}
	if _, err := Execute(context.Background(), prepared(t, p), p, Options{Runner: f.Run, Qlogs: "zstd"}); err == nil || len(f.Calls()) != 0 {
		t.Errorf("qlogs zstd: %v, runs done %v; want an error before any run", err, f.Calls())
	}
}

// TestExecuteStopsBeforeTheDiskIsFull: a sweep starts no run on a file
// system with less than MinFree left, says so, and resumes once there is
// room.
func TestExecuteStopsBeforeTheDiskIsFull(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100,500"), Repeat: 1})
	dir := prepared(t, p)
	free := uint64(10e9)
	f := &sweeptest.Runner{During: func(n int, _ string) {
		if n == 2 {
			free = 1e9 // the second run fills the disk
		}
	}}
	o := Options{Runner: f.Run, FreeSpace: func() (uint64, error) { return free, nil }, MinFree: 2e9}
	out, err := Execute(context.Background(), dir, p, o)
	if err != nil {
		t.Fatal(err)
	}
	if out.OK != 2 || out.Complete() || !strings.Contains(out.DiskFull, "1.0 GB free") || !strings.Contains(out.DiskFull, "below the 2.0 GB") {
		t.Fatalf("outcome %+v, want 2 runs done and a full disk named", out)
	}
	free = 10e9
	out, err = Execute(context.Background(), dir, p, o)
	if err != nil || out.OK != 1 || out.Skipped != 2 || !out.Complete() || out.DiskFull != "" {
		t.Fatalf("resumed: %+v, %v", out, err)
	}
}
