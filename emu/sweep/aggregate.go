package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/stats"
)

// AggregateOptions tune Aggregate.
type AggregateOptions struct {
	// Extra adds metrics of a counted run, read from its directory (emu
	// analyze adds the qlog figures); nil adds none. An error names the run
	// and fails the aggregation.
	Extra func(runDir string, sum *results.Summary) (map[string]float64, error)
	// KeepDegraded counts runs whose emulation was degraded (summary.json's
	// fidelity) in the statistics; by default they are left out.
	KeepDegraded bool
	// Studies add their own tables and figures to the sweep's (nil: the
	// engine's alone) and name its preset in the report.
	Studies Catalog
}

// Aggregate reads the summary.json of every run of p under dir/runs and
// summarizes each point. It is the one place that decides which runs count:
// a run counts when its directory holds a summary.json with status ok, the
// seed the plan gives it and its point's configuration. Every other run is
// listed with why it does not count: missing (no summary, or a run of
// another plan), failed (an unreadable summary, or the run failed) or
// interrupted. A run that ended ok but whose emulation fell behind
// (fidelity degraded) is listed as degraded, with the checks that failed,
// and counts only with o.KeepDegraded. A run dir holds nothing of is read
// from the sweep's record, runs.csv, when it lists it (runs_record.go).
// sweep.csv, runs.csv, report.html and emu analyze's analysis.json all
// come from this table.
func Aggregate(dir string, p *results.Plan, o AggregateOptions) (*results.SweepTable, error) {
	t := &results.SweepTable{Plan: p, Vary: []string{}, Runs: []results.RunResult{}, Warnings: []string{}, KeptDegraded: o.KeepDegraded}
	for _, a := range p.Vary {
		t.Vary = append(t.Vary, a.Key)
	}
	rec, err := readRecord(dir, p)
	if err != nil {
		return nil, err
	}
	perPoint := map[string]map[string][]float64{}
	for _, r := range p.Runs {
		res, err := aggregateRun(dir, p, r, rec, o)
		if err != nil {
			return nil, err
		}
		if res.Included {
			if perPoint[r.Point] == nil {
				perPoint[r.Point] = map[string][]float64{}
			}
			for k, v := range res.Metrics {
				perPoint[r.Point][k] = append(perPoint[r.Point][k], v)
			}
		}
		t.Runs = append(t.Runs, res)
	}
	addRelativeGoodput(p, t.Runs, perPoint)
	t.Metrics = metricOrder(p, t.Runs)
	for i := range p.Points {
		pt := &p.Points[i]
		row := results.SweepRow{Point: pt, ID: pt.ID, Labels: map[string]string{}, Params: pt.Params, Stats: map[string]results.Stat{}}
		for _, a := range p.Vary {
			row.Labels[a.Key] = p.Label(pt, a)
		}
		counted := 0
		for _, r := range t.Runs {
			if r.Point != pt.ID {
				continue
			}
			if r.Included {
				counted++
			}
			switch r.Status {
			case results.StatusOK:
				row.OK++
			case results.StatusDegraded:
				row.Degraded++
			case results.StatusMissing:
				row.Missing++
			default:
				row.Failed++
			}
		}
		for _, m := range t.Metrics {
			st := results.Stat(stats.Summarize(perPoint[pt.ID][m]))
			row.Stats[m] = st
			if counted > 0 && st.N < counted {
				t.Warnings = append(t.Warnings, fmt.Sprintf("point %s: %s known in %d of %d runs", pt.ID, m, st.N, counted))
			}
		}
		if counted < 2 {
			t.Warnings = append(t.Warnings, fmt.Sprintf("point %s: %d usable runs, no confidence interval", pt.ID, counted))
		}
		t.Rows = append(t.Rows, row)
	}
	sort.Strings(t.Warnings)
	return t, nil
}

// aggregateRun reads what became of run r: its directory, or the record
// when dir holds nothing of it.
func aggregateRun(dir string, p *results.Plan, r results.Run, rec runsRecord, o AggregateOptions) (results.RunResult, error) {
	res := results.RunResult{Run: r}
	runDir := string(results.SweepDir(dir).Run(r.ID))
	sum, err := results.ReadSummary(runDir)
	if errors.Is(err, fs.ErrNotExist) {
		if row, ok := rec.stands(dir, r); ok {
			row.Included = row.Status == results.StatusOK || (row.Status == results.StatusDegraded && o.KeepDegraded)
			return row, nil
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		res.Status, res.Error = results.StatusMissing, "no "+results.SummaryFile+" in "+filepath.Join(results.RunsDir, r.ID)
		return res, nil
	case err != nil:
		res.Status, res.Error = results.StatusFailed, "unreadable "+results.SummaryFile+": "+err.Error()
		return res, nil
	case sum.Seed != r.Seed || !configMatches(p, r, sum.Config):
		res.Status, res.Error = results.StatusMissing, "the run directory holds a run of another plan"
		return res, nil
	}
	res.Attempts, res.DurationS = keptAttempts(dir, p, r)+1, sum.DurationS
	if sum.Status != results.StatusOK {
		res.Status, res.Error = sum.Status, sum.Error
		if res.Status == "" {
			res.Status = results.StatusFailed
		}
		return res, nil
	}
	res.Status, res.Included = results.StatusOK, true
	if why, bad := degraded(sum); bad {
		res.Status, res.Error, res.Included = results.StatusDegraded, why, o.KeepDegraded
	}
	if res.Metrics, err = runMetrics(runDir, sum); err != nil {
		return res, fmt.Errorf("%s: %w", filepath.Join(results.RunsDir, r.ID), err)
	}
	if o.Extra != nil && res.Included {
		extra, err := o.Extra(runDir, sum)
		if err != nil {
			return res, fmt.Errorf("%s: %w", filepath.Join(results.RunsDir, r.ID), err)
		}
		for k, v := range extra {
			if _, ok := res.Metrics[k]; !ok {
				res.Metrics[k] = v
			}
		}
	}
	return res, nil
}

// degraded reports whether a run's emulation fell behind, and which checks
// say so. Runs of emu versions without the verdict are not degraded.
func degraded(sum *results.Summary) (string, bool) {
	if sum.Fidelity == nil || sum.Fidelity.Status != fidelity.Degraded {
		return "", false
	}
	return "emulation degraded: " + FailedChecks(sum.Fidelity), true
}

// FailedChecks names the failed checks of a verdict with their figures,
// e.g. "delay_line.late_p99 link1.down 3.2 > 1 ms".
func FailedChecks(f *fidelity.Fidelity) string {
	var parts []string
	for _, c := range f.Failed() {
		parts = append(parts, fmt.Sprintf("%s %s %.4g (limit %.4g %s)", c.Name, c.Subject, c.Value, c.Threshold, c.Unit))
	}
	if len(parts) == 0 {
		return "no check named"
	}
	return strings.Join(parts, "; ")
}

// metricOrder lists the metrics: total goodput, the flows' goodput in the
// order the plan's configurations name the flows (then any other metric a
// run reported, sorted), JFI, utilization.
func metricOrder(p *results.Plan, runs []results.RunResult) []string {
	out := []string{results.MetricGoodput}
	add := func(m string) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	for _, pt := range p.Points {
		for i := 0; ; i++ {
			k := "flows." + strconv.Itoa(i) + ".name"
			name, ok := pt.Params[k]
			if !ok {
				name, ok = p.Base[k]
			}
			if !ok || name == results.Unset {
				break
			}
			add(results.FlowGoodput(name))
		}
	}
	var extra []string
	for _, r := range runs {
		for k := range r.Metrics {
			if k != results.MetricGoodput && k != results.MetricJFI && k != results.MetricUtilization && !slices.Contains(out, k) && !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	slices.Sort(extra)
	out = append(out, extra...)
	return append(out, results.MetricJFI, results.MetricUtilization)
}

// MaxFlows is the largest number of flows of any point of t.
func MaxFlows(t *results.SweepTable) int {
	n := 0
	for _, r := range t.Rows {
		k := 0
		for _, m := range t.Metrics {
			if isFlowMetric(m) && r.Stats[m].N > 0 {
				k++
			}
		}
		n = max(n, k)
	}
	return n
}

func isFlowMetric(m string) bool {
	_, ok := results.GoodputFlow(m)
	return ok
}
