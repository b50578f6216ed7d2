package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
	"github.com/dc-emu/emu/internal/emutest"
)

// TestSweepIntegration runs real sweeps with the emu binary, as a user
// would: two batch sizes, two repeats, 2 MB downloads over constant links.
// It checks sweep.csv against the runs' own summary.json files, that a
// rerun resumes without running anything, that two shards merged hold
// the runs (ids and seeds) of the whole plan with consistent statistics,
// and that --jobs 2 runs the plan two runs at once.
func TestSweepIntegration(t *testing.T) {
	emutest.RequireRoot(t)
	if testing.Short() {
		t.Skip("builds emu and runs 12 emulations (about 25 s)")
	}
	emutest.Exclusive(t)
	bin := buildEmu(t)
	dir := emutest.TempDir(t)
	sweepArgs := []string{"sweep", "--vary", "dc.batch=25,500", "--repeat", "2",
		"--set", "link.trace=none", "--set", "flow.size=2MB"}
	emuCmd := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Env = append(os.Environ(), "EMU_NO_SUDO=1")
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\nstdout:\n%s\nstderr:\n%s", cmd.Args, err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	sweep := func(extra ...string) (string, string) {
		t.Helper()
		return emuCmd(append(slices.Clone(sweepArgs), extra...)...)
	}

	whole := filepath.Join(dir, "whole")
	start := time.Now()
	_, errs := sweep("--out", whole)
	t.Logf("4 runs in %v:\n%s", time.Since(start).Round(time.Millisecond), errs)
	checkSweepCSV(t, whole, 4)

	// The same command again resumes: nothing to do, nothing rewritten.
	before := modTimes(t, whole)
	_, errs = sweep("--out", whole)
	if !strings.Contains(errs, "4 already done") || strings.Contains(errs, "[1/4]") {
		t.Errorf("rerun did not resume:\n%s", errs)
	}
	if after := modTimes(t, whole); !slices.Equal(before, after) {
		t.Error("rerun rewrote run directories")
	}

	// Two shards on "two machines", then merged.
	s1, s2, merged := filepath.Join(dir, "s1"), filepath.Join(dir, "s2"), filepath.Join(dir, "merged")
	sweep("--out", s1, "--shard", "1/2")
	sweep("--out", s2, "--shard", "2/2")
	_, errs = emuCmd("sweep", "merge", s1, s2, "--out", merged)
	if !strings.Contains(errs, "4 runs copied") {
		t.Errorf("merge: %s", errs)
	}
	planWhole, _ := os.ReadFile(filepath.Join(whole, "plan.json"))
	planMerged, _ := os.ReadFile(filepath.Join(merged, "plan.json"))
	if len(planWhole) == 0 || !bytes.Equal(planWhole, planMerged) {
		t.Error("the merged plan differs from the whole sweep's")
	}
	var plan struct {
		Runs []struct {
			ID   string `json:"id"`
			Seed uint64 `json:"seed"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(planWhole, &plan); err != nil {
		t.Fatal(err)
	}
	for _, r := range plan.Runs {
		s, err := results.ReadSummary(filepath.Join(merged, "runs", r.ID))
		if err != nil || s.Seed != r.Seed || s.Status != results.StatusOK {
			t.Errorf("merged run %s: %+v %v (want seed %d, the whole plan's)", r.ID, s, err, r.Seed)
		}
	}
	checkSweepCSV(t, merged, 4)

	// The same plan two runs at once: every run ok, same seeds.
	par := filepath.Join(dir, "jobs2")
	start = time.Now()
	_, errs = sweep("--out", par, "--jobs", "2")
	t.Logf("4 runs, 2 at once, in %v:\n%s", time.Since(start).Round(time.Millisecond), errs)
	if !strings.Contains(errs, "(2 running)") {
		t.Error("no two runs ran at once")
	}
	checkSweepCSV(t, par, 4)
}

// checkSweepCSV recomputes every cell of dir/sweep.csv from the runs'
// summary.json files (metrics.md §5, t(0.975, 1) = 12.7062047 for two runs).
func checkSweepCSV(t *testing.T, dir string, runs int) {
	t.Helper()
	rows := sweeptest.ReadCSV(t, dir)
	header := rows[0]
	col := func(name string) int { return sweeptest.Column(t, header, name) }
	total := 0
	for _, row := range rows[1:] {
		var gp, jfi, util []float64
		for r := 1; ; r++ {
			s, err := results.ReadSummary(filepath.Join(dir, "runs", fmt.Sprintf("%s-r%d", row[0], r)))
			if err != nil {
				break
			}
			if s.Status != results.StatusOK {
				t.Errorf("%s-r%d: %s: %s", row[0], r, s.Status, s.Error)
				continue
			}
			if s.Fidelity != nil && s.Fidelity.Status == fidelity.Degraded {
				// Left out of the statistics (the machine was busy).
				t.Logf("%s-r%d: degraded: %v", row[0], r, s.Fidelity.Failed())
				total++
				continue
			}
			capacity := 0.0
			for _, l := range s.Links {
				if l.Dir == "down" {
					capacity += l.CapacityMbps
				}
			}
			gp = append(gp, s.Flows[0].GoodputMbps)
			jfi = append(jfi, s.JFI)
			util = append(util, s.Flows[0].GoodputMbps/capacity)
			total++
		}
		t.Logf("point %s (dc.batch=%s): goodput per run %v Mbit/s", row[0], row[col("dc.batch")], gp)
		for metric, xs := range map[string][]float64{"total.goodput_mbps": gp, "flow.dc.goodput_mbps": gp, "jfi": jfi, "utilization": util} {
			if len(xs) < 2 { // a degraded run left out: no spread
				if n := row[col(metric+"_n")]; n != strconv.Itoa(len(xs)) || row[col(metric+"_sd")] != "" {
					t.Errorf("%s %s: n %s, sd %q from %d counted runs", row[0], metric, n, row[col(metric+"_sd")], len(xs))
				}
				continue
			}
			mean, sd := 0.0, 0.0
			for _, x := range xs {
				mean += x / float64(len(xs))
			}
			for _, x := range xs {
				sd += (x - mean) * (x - mean) / float64(len(xs)-1)
			}
			sd = math.Sqrt(sd)
			ci := 12.7062047 * sd / math.Sqrt(2)
			for suffix, want := range map[string]float64{"_mean": mean, "_sd": sd, "_ci95": ci, "_n": float64(len(xs))} {
				got, err := strconv.ParseFloat(row[col(metric+suffix)], 64)
				if err != nil || math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)) {
					t.Errorf("%s %s%s = %q, summaries give %.6g", row[0], metric, suffix, row[col(metric+suffix)], want)
				}
			}
		}
	}
	if total != runs {
		t.Errorf("%d runs ok (degraded ones included) in %s, want %d", total, dir, runs)
	}
}

func modTimes(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(filepath.Join(dir, "runs"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			out = append(out, p+" "+fi.ModTime().String())
		}
		return nil
	})
	return out
}

// buildEmu builds the emu binary into the test's temporary directory.
func buildEmu(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "emu")
	emutest.GoBuild(t, emutest.EmuCommand, bin)
	return bin
}
