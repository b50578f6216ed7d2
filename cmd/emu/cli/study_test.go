package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study"
	"github.com/dc-emu/emu/emu/sweep"
)

// toyStudy is a study that only a test offers: one preset, and a table
// and a figure of its own for the sweeps of that preset.
type toyStudy struct{}

func (toyStudy) Presets() []sweep.Preset {
	return []sweep.Preset{{
		Name: "toy", Title: "a toy study's batch sizes", Figure: "the toy study (a test's)", Scenario: "throughput",
		Settings: []string{"link.trace=none", "flow.size=1MB"},
		Axes:     []results.Axis{sweep.MustVary("dc.batch=50,100")}, Repeat: 2,
		Notes: "Registered from a test: no engine file names it.",
	}}
}

func (toyStudy) Tables(w io.Writer, t *results.SweepTable) {
	if t.Plan.Preset == "toy" {
		fmt.Fprintf(w, "\ntoy table: %d points, %d runs\n", len(t.Rows), len(t.Runs))
	}
}

func (toyStudy) Figures(t *results.SweepTable) ([]sweep.Figure, error) {
	if t.Plan.Preset != "toy" {
		return nil, nil
	}
	return []sweep.Figure{{Name: "toy-figure", Title: "The toy study's figure", Caption: "drawn by the study", SVG: []byte("<svg/>"), PNG: []byte("png")}}, nil
}

// TestAStudyFromOutside: a study the program's catalog lists beside emu's
// own appears in --list-presets, runs as a preset, and its sweep gets
// the study's table and figure, with no engine file touched.
func TestAStudyFromOutside(t *testing.T) {
	catalog := append(study.All(), toyStudy{})
	sweepIn := func(args ...string) (int, string, string) {
		e := &env{ctx: context.Background(), studies: catalog}
		return runCommandIn(e, func(e *env) *cobra.Command {
			return sweepCommand(e, func(*env, bool) (sweep.Runner, error) { return newFakeRun("").Run, nil })
		}, append([]string{"sweep"}, args...)...)
	}
	code, out, errOut := sweepIn("--list-presets")
	if code != 0 || !strings.Contains(out, "toy — the toy study (a test's)") || !strings.Contains(out, "batch — Fig. 4a") {
		t.Fatalf("--list-presets: exit %d, %s\n%s", code, errOut, out)
	}
	dir := filepath.Join(t.TempDir(), "toy")
	code, out, errOut = sweepIn("--preset", "toy", "--out", dir)
	if code != 0 {
		t.Fatalf("sweep --preset toy: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "toy table: 2 points, 4 runs") {
		t.Errorf("the summary has no toy table:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, results.FiguresDir, "toy-figure.svg")); err != nil {
		t.Errorf("the toy figure: %v", err)
	}
	page, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "Sweep toy: a toy study&#39;s batch sizes") || !strings.Contains(string(page), "The toy study&#39;s figure") {
		t.Errorf("report.html names neither the toy preset nor its figure")
	}
	// emu's own catalog does not know it.
	if code, _, errOut := runSweepWith(context.Background(), newFakeRun("").Run, "--preset", "toy", "--dry-run"); code != 2 || !strings.Contains(errOut, `no such preset`) {
		t.Errorf("emu's catalog: exit %d, %s", code, errOut)
	}
}
