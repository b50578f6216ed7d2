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

// TestTextGolden pins what emu sweep, emu sweep --dry-run, --list-presets
// and emu analyze SWEEP print.
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
	WriteSummary(&b, plain)
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

	spec := namedPresetSpec(t, "batch")
	spec.Repeat = 2
	plan, err := NewPlan(spec)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WritePlan(&b, plan, Shard{I: 1, N: 2}); err != nil {
		t.Fatal(err)
	}
	emutest.Golden(t, "plan.golden", b.Bytes())

	b.Reset()
	if err := WritePresets(&b); err != nil {
		t.Fatal(err)
	}
	emutest.Golden(t, "presets.golden", b.Bytes())
}
