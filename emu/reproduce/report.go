package reproduce

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/dc-emu/emu/emu/findings"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study/paper"
	"github.com/dc-emu/emu/emu/sweep"
	"github.com/dc-emu/emu/internal/invoker"
)

// ReportOptions say what a report was made with.
type ReportOptions struct {
	// Session is the wall time of this session; the wall time of earlier
	// sessions on the same directory (the previous reproduce.json's) is
	// added to it.
	Session    time.Duration
	EmuVersion string
	// Made is when the report is made; zero leaves it out.
	Made time.Time
}

// WriteReport aggregates every preset of p that has a sweep directory
// under root (a partial sweep gives partial tables; runs of another plan
// do not count), judges the findings that read any of p's presets, and
// writes root/report.html and root/reproduce.json. It leaves the presets'
// own files as Execute wrote them. Presets not run yet leave the findings
// that read them not judged.
func WriteReport(root string, p *Plan, o ReportOptions) (*findings.Report, error) {
	res := findings.Results{}
	var figs []findings.Figure
	for i := range p.Sweeps {
		s := &p.Sweeps[i]
		dir := s.Dir(root)
		if _, err := os.Stat(filepath.Join(dir, results.PlanFile)); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		t, err := sweep.Aggregate(dir, s.Plan, sweep.AggregateOptions{})
		if err != nil {
			return nil, fmt.Errorf("reproduce: aggregate %s: %w", dir, err)
		}
		res[s.Preset.Name] = adapt(s.Preset.Name, t)
		sf, err := sweep.Figures(t, studies())
		if err != nil {
			return nil, fmt.Errorf("reproduce: figures of %s: %w", dir, err)
		}
		for _, f := range sf {
			figs = append(figs, findings.Figure{Preset: s.Preset.Name, Name: f.Name, Title: f.Title, SVG: f.SVG})
		}
	}
	wall := o.Session
	if prev, err := readReport(root); err != nil {
		return nil, err
	} else if prev != nil {
		wall += time.Duration(prev.WallTimeS * float64(time.Second))
	}
	meta := findings.Meta{Scale: p.Scale.Name, Repeat: p.Scale.Repeat, WallTime: wall, EmuVersion: o.EmuVersion, Made: o.Made}
	if !slices.Equal(p.Parts, AllParts()) {
		meta.Parts = p.Parts
	}
	rep := findings.NewReport(meta, p.Findings(), res)
	js, err := rep.JSON()
	if err != nil {
		return nil, err
	}
	page, err := findings.HTML(rep, res, figs)
	if err != nil {
		return nil, err
	}
	if err := results.WriteFile(filepath.Join(root, results.ReproduceFile), js); err != nil {
		return nil, err
	}
	if err := results.WriteFile(filepath.Join(root, results.ReportFile), page); err != nil {
		return nil, err
	}
	return rep, nil
}

// readReport reads root's reproduce.json; nil when there is none.
func readReport(root string) (*findings.Report, error) {
	b, err := invoker.ReadFile(filepath.Join(root, results.ReproduceFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	rep, err := findings.ReadReport(b)
	if err != nil {
		return nil, fmt.Errorf("reproduce: %s: %w", root, err)
	}
	return rep, nil
}

// Findings are the findings that read at least one of p's presets.
func (p *Plan) Findings() []findings.Finding {
	in := p.Presets()
	var out []findings.Finding
	for _, f := range paper.Findings() {
		if slices.ContainsFunc(f.Presets(), func(name string) bool { return slices.Contains(in, name) }) {
			out = append(out, f)
		}
	}
	return out
}

// adapt turns a preset's aggregated sweep table into the findings' input.
func adapt(preset string, t *results.SweepTable) *findings.Sweep {
	return findings.FromTable(preset, t)
}
