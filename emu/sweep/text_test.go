package sweep

import (
	"bytes"
	"os"
	"testing"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
)

const fixtureSweep = "../../analysis/testdata/sweep"

// TestTextGolden pins what emu sweep and emu analyze SWEEP print (the
// studies' tests pin --dry-run and --list-presets).
func TestTextGolden(t *testing.T) {
	p, err := results.ReadPlan(fixtureSweep)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Aggregate(fixtureSweep, p, AggregateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	WriteSummary(&b, plain, nil)
	emutest.Golden(t, "summary.golden", b.Bytes())

	withQlog, err := Aggregate(fixtureSweep, p, AggregateOptions{Extra: func(dir string, _ *results.Summary) (map[string]float64, error) {
		ra, err := analysis.AnalyzeRun(os.DirFS(dir), analysis.RunOptions{})
		if err != nil {
			return nil, err
		}
		return analysis.RunMetrics(ra), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	WriteAnalysis(&b, withQlog)
	emutest.Golden(t, "analysis.golden", b.Bytes())
}
