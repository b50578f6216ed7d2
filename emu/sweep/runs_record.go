package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/invoker"
)

// The record (runs.csv) stands in for the run directories it lists. A
// run counts from the record only while dir holds nothing of it: no
// runs/<id>, no kept attempt. Whatever is on disk wins, so a run done
// again replaces its row when the sweep is next aggregated. A recorded
// run that ended ok, degraded or not, is done for good: its earlier
// attempts are gone, so it cannot be rerun as one more attempt. Shards
// merge run directories, not records.

// runsRecord is the rows of runs.csv that are runs of the plan (same id,
// point and seed), by run id.
type runsRecord map[string]results.RunResult

// readRecord reads dir's runs.csv against plan p; an empty record when
// there is none. Rows of runs the plan does not have, or has with another
// seed, are left out: a plan replaced with --force removes the record
// (Prepare), so they come only from an edited file.
func readRecord(dir string, p *results.Plan) (runsRecord, error) {
	path := results.SweepDir(dir).File(results.RunsFile)
	b, err := invoker.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return runsRecord{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	rows, err := results.ReadRunsCSV(bytes.NewReader(b), path)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	plan := map[string]results.Run{}
	for _, r := range p.Runs {
		plan[r.ID] = r
	}
	rec := runsRecord{}
	for _, row := range rows {
		if r, ok := plan[row.ID]; ok && r == row.Run && row.Status != results.StatusMissing {
			rec[row.ID] = row
		}
	}
	return rec, nil
}

// stands reports the record's row of run r when it stands for the run:
// dir holds nothing of r.
func (rec runsRecord) stands(dir string, r results.Run) (results.RunResult, bool) {
	row, ok := rec[r.ID]
	if !ok || exists(string(results.SweepDir(dir).Run(r.ID))) || exists(keptDir(dir, r.ID, 1)) {
		return results.RunResult{}, false
	}
	return row, true
}

// done returns the record's row of run r when it holds the run done for
// good: it stands for the run, which ended ok (degraded or not).
func (rec runsRecord) done(dir string, r results.Run) (results.RunResult, bool) {
	row, ok := rec.stands(dir, r)
	return row, ok && (row.Status == results.StatusOK || row.Status == results.StatusDegraded)
}

// recordFor is readRecord for the estimates, which go on without a record
// that does not read: Execute and Aggregate report it.
func recordFor(dir string, p *results.Plan) runsRecord {
	rec, err := readRecord(dir, p)
	if err != nil {
		return runsRecord{}
	}
	return rec
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// writeRecord writes t's runs as dir/runs.csv with the metrics measured
// in each run; relative_goodput, which the aggregation derives from other
// points, is left out and derived again.
func writeRecord(dir string, t *results.SweepTable) error {
	metrics := slices.DeleteFunc(slices.Clone(t.Metrics), func(m string) bool { return m == results.MetricRelativeGoodput })
	var b bytes.Buffer
	if err := results.WriteRunsCSV(&b, t.Runs, metrics); err != nil {
		return err
	}
	return results.WriteFile(results.SweepDir(dir).File(results.RunsFile), b.Bytes())
}
