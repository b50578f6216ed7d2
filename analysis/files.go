package analysis

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dc-emu/emu/analysis/qlog"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/invoker"
)

// The file handling of emu analyze: what it writes into a run directory,
// a sweep's run directories and the directories a user names, all through
// emu/results' one writer (atomic, and the invoking user's under sudo).
// The analysis itself (run.go, conn.go, …) reads through io/fs.FS.

// WriteOptions says where AnalyzeRunDir and AnalyzeQlogFile write.
type WriteOptions struct {
	// Out is where the analysis goes as JSON; "": a run's analysis.json
	// in its directory, nowhere for a qlog file.
	Out string
	// PlotDir is where the figures go; "": a run's plots/, none for a
	// qlog file.
	PlotDir string
	NoPlot  bool   // draw no figures
	QvisDir string // qvis copies of the qlog files go here; "": none
}

// Written is what AnalyzeRunDir or AnalyzeQlogFile wrote.
type Written struct {
	Out     string    // the analysis as JSON ("": not written)
	PlotDir string    // where the figures are ("": none drawn)
	Figures []*Figure // drawn, SVG and PNG each
	Notes   []string  // figures left out, and why
	Report  string    // report.html ("": none)
	Qvis    []QvisCopy
}

// AnalyzeRunDir is emu analyze of the run directory dir: AnalyzeRun, then
// writeRunDir.
func AnalyzeRunDir(dir string, ro RunOptions, o WriteOptions) (*RunAnalysis, *Written, error) {
	ra, err := AnalyzeRun(invoker.DirFS(dir), ro)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	w, err := writeRunDir(dir, ra, o)
	return ra, w, err
}

// writeRunDir writes the analysis ra of the run directory dir: its
// analysis.json, its figures (SVG and PNG), its report.html (into dir,
// since its links to the qlog, pcap and key files are relative to it) and,
// if asked, qvis copies of its qlog files.
func writeRunDir(dir string, ra *RunAnalysis, o WriteOptions) (*Written, error) {
	run := results.RunDir(dir)
	out := &Written{Out: o.Out, Notes: []string{"figures not drawn (--no-plot)"}}
	var err error
	if out.Out == "" {
		out.Out, err = run.WriteAnalysis(ra)
	} else {
		err = results.WriteJSON(out.Out, ra)
	}
	if err != nil {
		return nil, err
	}
	if !o.NoPlot {
		out.PlotDir = o.PlotDir
		if out.PlotDir == "" {
			out.PlotDir = run.File(results.PlotsDir)
		}
		if out.Figures, out.Notes, err = RunFigures(ra); err != nil {
			return nil, err
		}
		if err := WriteFigures(out.PlotDir, out.Figures); err != nil {
			return nil, err
		}
	}
	var page strings.Builder
	if err := WriteRunReport(&page, invoker.DirFS(dir), ra, out.Figures, out.Notes); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if out.Report, err = run.WriteReport([]byte(page.String())); err != nil {
		return nil, err
	}
	if o.QvisDir != "" {
		files, err := results.QlogFiles(invoker.DirFS(dir))
		if err != nil {
			return nil, err
		}
		for i := range files {
			files[i] = run.File(files[i])
		}
		if out.Qvis, err = ExportQvisFiles(o.QvisDir, files); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AnalyzeQlogFile is emu analyze of the qlog file path (gzipped or not):
// AnalyzeQlog, then what o asks for is written — nothing beside the file
// itself. A file cut short is analysed up to its last complete record and
// written, and the error wraps ErrTruncated.
func AnalyzeQlogFile(path string, qo QlogOptions, o WriteOptions) (*ConnAnalysis, *Written, error) {
	f, err := OpenQlogFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	a, err := AnalyzeQlog(f, path, qo)
	if err != nil && !errors.Is(err, qlog.ErrTruncated) {
		return nil, nil, err
	}
	w, werr := writeQlogFile(path, a, o)
	if werr != nil {
		return nil, nil, werr
	}
	return a, w, err
}

// writeQlogFile writes what o asks for of the analysis a of the qlog file
// path.
func writeQlogFile(path string, a *ConnAnalysis, o WriteOptions) (*Written, error) {
	out := &Written{Out: o.Out}
	if o.Out != "" {
		if err := results.WriteJSON(o.Out, a); err != nil {
			return nil, err
		}
	}
	if o.PlotDir != "" && !o.NoPlot {
		var err error
		if out.Figures, out.Notes, err = QlogFigures(a); err != nil {
			return nil, err
		}
		if err := WriteFigures(o.PlotDir, out.Figures); err != nil {
			return nil, err
		}
		out.PlotDir = o.PlotDir
	}
	if o.QvisDir != "" {
		var err error
		if out.Qvis, err = ExportQvisFiles(o.QvisDir, []string{path}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Log writes to out what was written besides the analysis, a line each
// as emu analyze prints them: figures left out, the figures and the
// report written, and each qvis copy.
func (w *Written) Log(out io.Writer) {
	if w.PlotDir != "" {
		for _, n := range w.Notes {
			fmt.Fprintf(out, "emu: note: no figure: %s\n", n)
		}
	}
	if len(w.Figures) > 0 {
		fmt.Fprintf(out, "emu: wrote %d figures (SVG and PNG) to %s\n", len(w.Figures), w.PlotDir)
	}
	if w.Report != "" {
		fmt.Fprintf(out, "emu: wrote %s\n", w.Report)
	}
	for _, c := range w.Qvis {
		if c.Dropped != "" {
			fmt.Fprintf(out, "emu: warning: %s: left out of the qvis copy\n", c.Dropped)
		}
		how := "header converted"
		if !c.HeaderChanged {
			how = "already loads in old qvis, copied"
		}
		fmt.Fprintf(out, "emu: qvis: %s (%d events, %s)\n", c.Dst, c.Events, how)
	}
}

// WriteFigures renders each figure into dir (made if missing) as
// <name>.svg and <name>.png.
func WriteFigures(dir string, figs []*Figure) error {
	if err := results.MkdirAll(dir); err != nil {
		return err
	}
	for _, fig := range figs {
		for _, format := range []string{"svg", "png"} {
			path := filepath.Join(dir, fig.Name+"."+format)
			f, err := results.Create(path)
			if err != nil {
				return err
			}
			if err := fig.Render(f, format); err != nil {
				f.Discard()
				return fmt.Errorf("%s: %w", path, err)
			}
			if err := f.Commit(); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return nil
}

// ErrQvisOverwrite is ExportQvisFiles refusing to write a copy over the
// file it copies.
var ErrQvisOverwrite = errors.New("the qvis copy would overwrite the qlog itself")

// QvisCopy is one qlog file copied for qvis by ExportQvisFiles.
type QvisCopy struct {
	Src, Dst string
	QvisExport
}

// ExportQvisFiles writes into dir (made if missing) a copy of each qlog
// file that qvis builds older than commit 0c93edf load (ExportQvis); a
// gzipped file is copied out plain, under its name without .gz.
func ExportQvisFiles(dir string, files []string) ([]QvisCopy, error) {
	if err := results.MkdirAll(dir); err != nil {
		return nil, err
	}
	var done []QvisCopy
	for _, src := range files {
		c := QvisCopy{Src: src, Dst: filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), ".gz"))}
		if sameFile(src, c.Dst) {
			return done, fmt.Errorf("%s: %w", src, ErrQvisOverwrite)
		}
		in, err := OpenQlogFile(src)
		if err != nil {
			return done, err
		}
		out, err := results.Create(c.Dst)
		if err != nil {
			in.Close()
			return done, err
		}
		c.QvisExport, err = ExportQvis(out, in, src)
		in.Close()
		if err == nil {
			err = out.Commit()
		} else {
			out.Discard()
		}
		if err != nil {
			return done, err
		}
		done = append(done, c)
	}
	return done, nil
}

// OpenQlogFile opens a qlog file given by its path, gzipped or not.
func OpenQlogFile(path string) (io.ReadCloser, error) {
	return results.OpenQlog(invoker.DirFS(filepath.Dir(path)), filepath.Base(path))
}

// sameFile reports whether a and b both exist and are one file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// SweepRuns analyses the runs of a sweep that its aggregation counts and
// keeps each analysis until Write puts it into the run's directory. Its
// Metrics is what the aggregation calls for each counted run
// (sweep.AggregateOptions.Extra).
type SweepRuns struct {
	Options RunOptions
	runs    map[string]*RunAnalysis
}

// Metrics analyses the run directory runDir and returns its figures that
// a sweep aggregates (RunMetrics).
func (s *SweepRuns) Metrics(runDir string, _ *results.Summary) (map[string]float64, error) {
	ra, err := AnalyzeRun(invoker.DirFS(runDir), s.Options)
	if err != nil {
		return nil, err
	}
	if s.runs == nil {
		s.runs = map[string]*RunAnalysis{}
	}
	s.runs[runDir] = ra
	return RunMetrics(ra), nil
}

// Write writes each analysed run's analysis.json, in the order of the
// run directories' names.
func (s *SweepRuns) Write() error {
	for _, dir := range slices.Sorted(maps.Keys(s.runs)) {
		if _, err := results.RunDir(dir).WriteAnalysis(s.runs[dir]); err != nil {
			return err
		}
	}
	return nil
}
