package cli

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

// Finished runs and sweeps re-analysed are golden: what emu analyze makes
// of a run directory, and what emu sweep merge DIR --out DIR (which
// aggregates a finished sweep directory again: sweep.csv, runs.csv,
// figures/, report.html) and then emu analyze make of a sweep directory,
// from the same summaries, time series and runs.csv each time. Moving
// code must not change a byte of them.
//
// Each fixture's goldens are in testdata/analyze/<fixture>/: the commands'
// exit status, stdout and stderr; the text files they write; the full SVG
// of a few figures (one of each kind); and files.golden, every file of the
// directory afterwards (inputs included) with its size and SHA-256, which
// pins the figures (SVG and PNG) and the reports byte for byte without
// keeping megabytes of them. Normalised, and only there: the temporary
// directory the fixture is copied to (written as $DIR in the commands'
// output), and report.html's inlined figures (data:image/svg+xml;base64,…),
// replaced by their SHA-256 in the text golden (files.golden has the
// page's own hash). The figures are rendered with floating point (gonum
// plot): another CPU architecture may round differently and need its own
// update.
//
// EMU_GOLDEN_UPDATE=1 go test ./cmd/emu/cli -run Golden rewrites them.

// runFixtures are run directories under analysis/testdata, and the
// figures golden in full.
var runFixtures = []struct {
	name string
	svgs []string
}{
	{"run-fairness", []string{"plots/throughput.svg", "plots/utilization.svg"}},
	{"run-latency", []string{"plots/delay.svg", "plots/owd-cdf.svg"}},
}

func TestGoldenAnalyzeRun(t *testing.T) {
	for _, fx := range runFixtures {
		t.Run(fx.name, func(t *testing.T) {
			dir := copyFixture(t, fx.name)
			g := goldenDir{t: t, dir: dir, name: path.Join("analyze", fx.name)}
			code, out, errs := runAnalyze(t, dir)
			g.command("analyze", code, out, errs)
			g.files(append([]string{"analysis.json", "report.html"}, fx.svgs...)...)
			g.manifest()
		})
	}
}

// sweepFixtureSVGs are the figures of each sweep fixture golden in full.
var sweepFixtureSVGs = map[string][]string{
	"batch":          {"figures/goodput-dc.batch.svg"},
	"batch-fairness": {"figures/flows-dc.batch.svg", "figures/jfi-dc.batch.svg"},
	"satellite":      {"figures/used-bandwidth-10m_2m.svg", "figures/flow.dc.fct_s.1mb-size.svg"},
	"multipath-grid": {"figures/relative-goodput-capacity_ratio-delay_ratio.svg"},
	"rrul":           {"figures/tradeoff-down-rr.latency_p95_ms.svg", "figures/tput-delay-rtt.svg"},
	"sweep":          {"figures/goodput-dc.batch.svg"},
}

// TestGoldenSweepReanalysis re-aggregates and analyses the finished
// sweeps of testdata/sweeps (golden_fixtures_test.go: presets cut down,
// run by the fake runner, one with a failed run, one with a run directory
// deleted that runs.csv stands in for) and analysis/testdata/sweep (made
// by hand: runs with time series, a failed and a missing run).
func TestGoldenSweepReanalysis(t *testing.T) {
	srcs := map[string]string{"sweep": filepath.Join(analyzeTestdata, "sweep")}
	names := []string{}
	for _, fx := range fixtureSweeps {
		names = append(names, fx.name)
		srcs[fx.name] = filepath.Join(sweepFixtures, fx.name)
	}
	names = append(names, "sweep")
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), name)
			if err := os.CopyFS(dir, os.DirFS(srcs[name])); err != nil {
				t.Fatal(err)
			}
			g := goldenDir{t: t, dir: dir, name: path.Join("analyze", "sweep-"+name)}
			code, out, errs := runSweepWith(context.Background(), newFakeRun("").Run, "merge", dir, "--out", dir)
			g.command("sweep-merge", code, out, errs)
			code, out, errs = runAnalyze(t, dir)
			g.command("analyze", code, out, errs)
			g.files(append([]string{"sweep.csv", "runs.csv", "analysis.json", "report.html", "runs/p01-r1/analysis.json"}, sweepFixtureSVGs[name]...)...)
			g.manifest()
		})
	}
}

// goldenDir compares what commands did in dir with the goldens under
// testdata/<name>.
type goldenDir struct {
	t    *testing.T
	dir  string
	name string
}

// command compares a command's exit status, stdout and stderr with
// <what>.golden, dir written as $DIR.
func (g goldenDir) command(what string, code int, stdout, stderr string) {
	g.t.Helper()
	s := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, stdout, stderr)
	emutest.Golden(g.t, path.Join(g.name, what+".golden"), []byte(strings.ReplaceAll(s, g.dir, "$DIR")))
}

// svgDataURL is a figure inlined in an HTML page, its +s escaped by
// html/template or not.
var svgDataURL = regexp.MustCompile(`data:image/svg(\+|&#43;)xml;base64,([A-Za-z0-9/=]|\+|&#43;)+`)

// files compares each file (a path under dir) with <file>.golden;
// report.html's inlined figures are replaced by their SHA-256.
func (g goldenDir) files(names ...string) {
	g.t.Helper()
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(g.dir, filepath.FromSlash(name)))
		if err != nil {
			g.t.Errorf("%v", err)
			continue
		}
		if path.Base(name) == "report.html" {
			b = svgDataURL.ReplaceAllFunc(b, func(u []byte) []byte {
				_, data, _ := strings.Cut(html.UnescapeString(string(u)), ",")
				svg, err := base64.StdEncoding.DecodeString(data)
				if err != nil {
					g.t.Errorf("%s: %v", name, err)
				}
				return fmt.Appendf(nil, "data:image/svg+xml;sha256,%x", sha256.Sum256(svg))
			})
		}
		emutest.Golden(g.t, path.Join(g.name, name+".golden"), b)
	}
}

// manifest compares every file under dir, with its size and SHA-256, with
// files.golden.
func (g goldenDir) manifest() {
	g.t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(g.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(g.dir, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%x %8d %s\n", sha256.Sum256(data), len(data), filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		g.t.Fatal(err)
	}
	emutest.Golden(g.t, path.Join(g.name, "files.golden"), []byte(b.String()))
}
