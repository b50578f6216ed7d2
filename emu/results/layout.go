package results

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/dc-emu/emu/internal/invoker"
)

// The names of the files and directories of a run directory, a sweep
// directory and a reproduction (docs/results.md). This is the one place
// they are spelled: everything else asks a RunDir or a SweepDir for a
// path, or uses these names with an fs.FS rooted at the directory.
const (
	// A run directory.
	SummaryFile    = "summary.json"
	ConfigFile     = "config.json"
	CountersFile   = "counters.json"
	TimeseriesFile = "timeseries.csv"
	// AnalysisFile is what emu analyze writes into a run or a sweep
	// directory.
	AnalysisFile = "analysis.json"
	// PlotsDir holds a run's figures made by emu analyze.
	PlotsDir = "plots"

	// A sweep directory.
	PlanFile = "plan.json"
	RunsDir  = "runs"
	CSVFile  = "sweep.csv"
	// RunsFile is a sweep's runs.csv: every run of its plan with what
	// became of it and the metrics the aggregation read from it. It is the
	// sweep's record: with it and plan.json a sweep aggregates, judges and
	// resumes even when the run directories are gone (deleted to save
	// space, or lost with the machine a long reproduction began on).
	RunsFile   = "runs.csv"
	FiguresDir = "figures"
	// DegradedDir keeps the attempts of each run that came back degraded
	// and was run again: the first in degraded/<run id>/, attempt k ≥ 2 in
	// degraded/<run id>.<k>/ (run directories; runs/ holds the latest).
	DegradedDir = "degraded"

	// ReportFile is the one-page HTML report of a run (emu analyze), a
	// sweep and a reproduction.
	ReportFile = "report.html"
	// ReproduceFile is a reproduction's verdicts on the paper's findings
	// (emu reproduce), beside its report and one sweep per preset.
	ReproduceFile = "reproduce.json"
	// CalibrationFile is what emu calibrate writes into its directory.
	CalibrationFile = "calibration.json"
)

// RunDir is a run directory: what one emu run wrote (docs/results.md).
// Its methods are the only way emu builds the paths of its files and
// reads and writes them; writes go through the one atomic writer
// (writer.go), so they belong to the user who ran emu through sudo.
type RunDir string

// File is the path of name (a slash-separated path relative to the run
// directory: SummaryFile, RecvLogFile(flow), …) in d.
func (d RunDir) File(name string) string { return filepath.Join(string(d), filepath.FromSlash(name)) }

// Create makes d and the subdirectories the run's processes write into.
func (d RunDir) Create() error {
	for _, sub := range []string{"", FlowsDir, QlogDir, LogsDir, TLSDir} {
		if err := MkdirAll(d.File(sub)); err != nil {
			return err
		}
	}
	return nil
}

// ReadSummary reads d's summary.json. Syntax and type errors name the
// file, line and column.
func (d RunDir) ReadSummary() (*Summary, error) {
	path := d.File(SummaryFile)
	b, err := invoker.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := DecodeJSON(b, path, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// WriteSummary writes d's summary.json, creating d if it is missing (a
// run that failed before it made its directory still says how it ended).
// It is summary.json's one writer.
func (d RunDir) WriteSummary(s *Summary) error {
	if err := MkdirAll(string(d)); err != nil {
		return err
	}
	return WriteJSON(d.File(SummaryFile), s)
}

// WriteConfig writes d's config.json.
func (d RunDir) WriteConfig(c ConfigRecord) error { return WriteJSON(d.File(ConfigFile), c) }

// WriteCounters writes d's counters.json.
func (d RunDir) WriteCounters(c *Counters) error { return WriteJSON(d.File(CountersFile), c) }

// WriteTimeseries writes d's timeseries.csv.
func (d RunDir) WriteTimeseries(t *SeriesTable) error {
	var b bytes.Buffer
	if err := t.Write(&b); err != nil {
		return err
	}
	return WriteFile(d.File(TimeseriesFile), b.Bytes())
}

// WriteAnalysis writes d's analysis.json (what emu analyze found) and
// returns its path.
func (d RunDir) WriteAnalysis(v any) (string, error) {
	path := d.File(AnalysisFile)
	return path, WriteJSON(path, v)
}

// WriteReport writes d's report.html and returns its path.
func (d RunDir) WriteReport(page []byte) (string, error) {
	path := d.File(ReportFile)
	return path, WriteFile(path, page)
}

// SweepDir is a sweep directory: a plan, one run directory per run of it,
// and what the aggregation made of them (docs/results.md, docs/sweeps.md).
type SweepDir string

// File is the path of name (PlanFile, CSVFile, …) in d.
func (d SweepDir) File(name string) string { return filepath.Join(string(d), name) }

// Run is the run directory of run id.
func (d SweepDir) Run(id string) RunDir { return RunDir(filepath.Join(string(d), RunsDir, id)) }

// Degraded is the run directory that keeps attempt k (from 1) of run id
// after it came back degraded (DegradedDir).
func (d SweepDir) Degraded(id string, k int) RunDir {
	name := id
	if k > 1 {
		name = fmt.Sprintf("%s.%d", id, k)
	}
	return RunDir(filepath.Join(string(d), DegradedDir, name))
}

// Create makes d and its runs/ directory.
func (d SweepDir) Create() error { return MkdirAll(d.File(RunsDir)) }

// ReadPlan reads d's plan.json.
func (d SweepDir) ReadPlan() (*Plan, error) {
	path := d.File(PlanFile)
	b, err := invoker.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := ParsePlan(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// WritePlan writes d's plan.json.
func (d SweepDir) WritePlan(p *Plan) error { return WriteJSON(d.File(PlanFile), p) }

// WriteCSV writes d's sweep.csv.
func (d SweepDir) WriteCSV(t *SweepTable) error {
	var b bytes.Buffer
	if err := WriteSweepCSV(&b, t); err != nil {
		return err
	}
	return WriteFile(d.File(CSVFile), b.Bytes())
}

// WriteAnalysis writes d's analysis.json (emu analyze's statistics) and
// returns its path.
func (d SweepDir) WriteAnalysis(t *SweepTable) (string, error) {
	path := d.File(AnalysisFile)
	return path, WriteJSON(path, t)
}

// WriteReport writes d's report.html.
func (d SweepDir) WriteReport(page []byte) error { return WriteFile(d.File(ReportFile), page) }

// Figures is d's figures directory, created if missing.
func (d SweepDir) Figures() (string, error) {
	dir := d.File(FiguresDir)
	return dir, MkdirAll(dir)
}

// ReadSummary reads the summary.json of the run directory dir.
func ReadSummary(dir string) (*Summary, error) { return RunDir(dir).ReadSummary() }

// ReadPlan reads the plan.json of the sweep directory dir.
func ReadPlan(dir string) (*Plan, error) { return SweepDir(dir).ReadPlan() }

// WritePlan writes the plan.json of the sweep directory dir.
func WritePlan(dir string, p *Plan) error { return SweepDir(dir).WritePlan(p) }
