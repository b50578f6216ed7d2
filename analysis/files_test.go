package analysis

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

// fixture copies testdata/name into a fresh directory, since emu analyze
// writes into it.
func fixture(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// noTemporaries fails if dir holds a writer's temporary file (.name.*).
func noTemporaries(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("%s: temporary file %s left", dir, e.Name())
		}
	}
}

func TestAnalyzeRunDirWrites(t *testing.T) {
	dir := fixture(t, "run-fairness")
	ra, w, err := AnalyzeRunDir(dir, RunOptions{}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ra.Run == "" || w.Out != filepath.Join(dir, results.AnalysisFile) || w.Report != filepath.Join(dir, results.ReportFile) || w.PlotDir != filepath.Join(dir, results.PlotsDir) {
		t.Fatalf("run %q, wrote %+v", ra.Run, w)
	}
	var names []string
	for _, f := range w.Figures {
		names = append(names, f.Name)
		for _, ext := range []string{".svg", ".png"} {
			if fi, err := os.Stat(filepath.Join(w.PlotDir, f.Name+ext)); err != nil || fi.Size() < 1000 {
				t.Errorf("figure %s%s: %v", f.Name, ext, err)
			}
		}
	}
	if !slices.Contains(names, "throughput") || !slices.Contains(names, "congestion-dc-server") {
		t.Errorf("figures %v lack throughput or congestion-dc-server", names)
	}
	for _, p := range []string{w.Out, w.Report} {
		if fi, err := os.Stat(p); err != nil || fi.Size() < 100 {
			t.Errorf("%s: %v", p, err)
		}
	}
	noTemporaries(t, dir)
	noTemporaries(t, w.PlotDir)

	// --no-plot and --out: no figures, the analysis elsewhere, the report
	// still in the run directory and saying why it has no figures.
	dir = fixture(t, "run-fairness")
	out := filepath.Join(t.TempDir(), "a.json")
	_, w, err = AnalyzeRunDir(dir, RunOptions{SkipQlog: true}, WriteOptions{Out: out, NoPlot: true})
	if err != nil {
		t.Fatal(err)
	}
	if w.Out != out || w.PlotDir != "" || len(w.Figures) != 0 {
		t.Errorf("--no-plot --out wrote %+v", w)
	}
	for _, p := range []string{results.AnalysisFile, results.PlotsDir} {
		if _, err := os.Stat(filepath.Join(dir, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s written into the run directory: %v", p, err)
		}
	}
	page, err := os.ReadFile(w.Report)
	if err != nil || !strings.Contains(string(page), "figures not drawn (--no-plot)") {
		t.Errorf("report %s: %v, no note on the figures", w.Report, err)
	}

	if _, _, err := AnalyzeRunDir(t.TempDir(), RunOptions{}, WriteOptions{}); err == nil {
		t.Error("an empty directory analysed as a run")
	}
}

func TestAnalyzeQlogFileWritesOnlyWhereAsked(t *testing.T) {
	src := filepath.Join(fixture(t, "run-fairness"), "qlog", "dc-server.sqlog")
	before, _ := os.ReadDir(filepath.Dir(src))
	a, w, err := AnalyzeQlogFile(src, QlogOptions{Bin: DefaultBin}, WriteOptions{})
	if err != nil || a == nil || w.Out != "" || w.PlotDir != "" || len(w.Qvis) != 0 {
		t.Fatalf("nothing asked: %+v, %v", w, err)
	}
	if after, _ := os.ReadDir(filepath.Dir(src)); len(after) != len(before) {
		t.Errorf("files beside the qlog: %d before, %d after", len(before), len(after))
	}
	dir := t.TempDir()
	o := WriteOptions{Out: filepath.Join(dir, "a.json"), PlotDir: filepath.Join(dir, "plots"), QvisDir: filepath.Join(dir, "qvis")}
	_, w, err = AnalyzeQlogFile(src, QlogOptions{Bin: DefaultBin}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Figures) == 0 || len(w.Qvis) != 1 || w.Qvis[0].Dst != filepath.Join(o.QvisDir, "dc-server.sqlog") || w.Qvis[0].Events == 0 {
		t.Fatalf("wrote %+v", w)
	}
	for _, p := range []string{o.Out, w.Qvis[0].Dst, filepath.Join(o.PlotDir, w.Figures[0].Name+".png")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	var log strings.Builder
	w.Log(&log)
	if !strings.Contains(log.String(), "emu: qvis: "+w.Qvis[0].Dst) || !strings.Contains(log.String(), "figures (SVG and PNG) to "+o.PlotDir) {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestExportQvisRefusesItsSource: a copy into the qlog's own directory
// would replace the file it reads; it is refused and the file kept.
func TestExportQvisRefusesItsSource(t *testing.T) {
	src := filepath.Join(fixture(t, "run-fairness"), "qlog", "dc-client.sqlog")
	want, _ := os.ReadFile(src)
	_, err := ExportQvisFiles(filepath.Dir(src), []string{src})
	if !errors.Is(err, ErrQvisOverwrite) {
		t.Fatalf("err %v, want ErrQvisOverwrite", err)
	}
	if got, _ := os.ReadFile(src); string(got) != string(want) {
		t.Error("the source changed")
	}
	noTemporaries(t, filepath.Dir(src))
}
