package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dc-emu/emu/emu/results"
)

// Finish aggregates the runs of the sweep in dir (whatever exists: a
// partial sweep gives a partial table) as o says and writes sweep.csv,
// runs.csv (the record of every run), figures/ (SVG and PNG, the studies'
// among them) and report.html. Figures left from an earlier aggregation
// that no longer apply are removed.
func Finish(dir string, o AggregateOptions) (*results.SweepTable, error) {
	p, err := results.ReadPlan(dir)
	if err != nil {
		return nil, err
	}
	t, err := Aggregate(dir, p, o)
	if err != nil {
		return nil, err
	}
	sd := results.SweepDir(dir)
	if err := sd.WriteCSV(t); err != nil {
		return nil, err
	}
	if err := writeRecord(dir, t); err != nil {
		return nil, err
	}
	figs, err := Figures(t, o.Studies)
	if err != nil {
		return nil, err
	}
	figDir, err := sd.Figures()
	if err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, f := range figs {
		for ext, b := range map[string][]byte{".svg": f.SVG, ".png": f.PNG} {
			keep[f.Name+ext] = true
			if err := results.WriteFile(filepath.Join(figDir, f.Name+ext), b); err != nil {
				return nil, err
			}
		}
	}
	old, err := os.ReadDir(figDir)
	if err != nil {
		return nil, err
	}
	for _, e := range old {
		n := e.Name()
		if !keep[n] && (strings.HasSuffix(n, ".svg") || strings.HasSuffix(n, ".png")) {
			if err := os.Remove(filepath.Join(figDir, n)); err != nil {
				return nil, fmt.Errorf("remove stale figure: %w", err)
			}
		}
	}
	html, err := WriteReport(t, figs, o.Studies)
	if err != nil {
		return nil, err
	}
	if err := sd.WriteReport(html); err != nil {
		return nil, err
	}
	return t, nil
}
