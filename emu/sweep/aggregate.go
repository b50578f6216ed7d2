package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/results"
)

// Table is a sweep aggregated: per point, each metric's mean, standard
// deviation, 95 % confidence interval and n over the point's runs that
// ended ok (metrics.md §5: one value per run, Student's t).
type Table struct {
	Plan *Plan
	// Metrics in column order: total goodput, each flow's goodput (flows
	// in the order the plan's configurations name them), JFI, utilization.
	Metrics []string
	Rows    []Row
	// Runs is every run of the plan and what became of it.
	Runs []RunResult
}

// Row is one point of the table.
type Row struct {
	Point *Point
	// OK runs are in the statistics; Failed ones (failed or interrupted)
	// and Missing ones (not run, or left by another plan) are not.
	OK, Failed, Missing int
	Stats               map[string]analysis.Stat
}

// RunResult is one run's status and metrics.
type RunResult struct {
	Run
	Status  string // ok, failed, interrupted, missing
	Error   string
	Metrics map[string]float64
}

// Run statuses besides emu's.
const statusMissing = "missing"

// Aggregate reads the summary.json of every run of p under dir/runs and
// summarizes each point.
func Aggregate(dir string, p *Plan) (*Table, error) {
	t := &Table{Plan: p}
	perPoint := map[string]map[string][]float64{}
	for _, r := range p.Runs {
		res := RunResult{Run: r}
		sum, err := results.ReadSummary(filepath.Join(dir, RunsDir, r.ID))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			res.Status = statusMissing
		case err != nil:
			res.Status, res.Error = results.StatusFailed, "unreadable summary.json: "+err.Error()
		case sum.Seed != r.Seed || !configMatches(p, r, sum.Config):
			res.Status, res.Error = statusMissing, "the run directory holds a run of another plan"
		case sum.Status != results.StatusOK:
			res.Status, res.Error = sum.Status, sum.Error
			if res.Status == "" {
				res.Status = results.StatusFailed
			}
		default:
			res.Status = results.StatusOK
			res.Metrics = RunMetrics(sum)
			if perPoint[r.Point] == nil {
				perPoint[r.Point] = map[string][]float64{}
			}
			for k, v := range res.Metrics {
				perPoint[r.Point][k] = append(perPoint[r.Point][k], v)
			}
		}
		t.Runs = append(t.Runs, res)
	}
	t.Metrics = metricOrder(p, t.Runs)
	for i := range p.Points {
		pt := &p.Points[i]
		row := Row{Point: pt, Stats: map[string]analysis.Stat{}}
		for _, r := range t.Runs {
			if r.Point != pt.ID {
				continue
			}
			switch r.Status {
			case results.StatusOK:
				row.OK++
			case statusMissing:
				row.Missing++
			default:
				row.Failed++
			}
		}
		for _, m := range t.Metrics {
			row.Stats[m] = analysis.Summarize(perPoint[pt.ID][m])
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// metricOrder lists the metrics: total goodput, the flows' goodput in the
// order the plan's configurations name the flows (then any other flow a
// run reported), JFI, utilization.
func metricOrder(p *Plan, runs []RunResult) []string {
	out := []string{MetricGoodput}
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
			if !ok || name == unset {
				break
			}
			add(flowMetric(name))
		}
	}
	var extra []string
	for _, r := range runs {
		for k := range r.Metrics {
			if k != MetricGoodput && k != MetricJFI && k != MetricUtilization && !slices.Contains(out, k) && !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	slices.Sort(extra)
	out = append(out, extra...)
	return append(out, MetricJFI, MetricUtilization)
}

// Counts sums the rows' run counts.
func (t *Table) Counts() (ok, failed, missing int) {
	for _, r := range t.Rows {
		ok += r.OK
		failed += r.Failed
		missing += r.Missing
	}
	return
}

// MaxFlows is the largest number of flows of any point.
func (t *Table) MaxFlows() int {
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
	return strings.HasPrefix(m, "flow.") && strings.HasSuffix(m, ".goodput_mbps")
}

// formatNum writes a number for the CSV: six significant digits, "" for
// NaN (no value).
func formatNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func (r RunResult) String() string {
	if r.Error == "" {
		return fmt.Sprintf("%s: %s", r.ID, r.Status)
	}
	return fmt.Sprintf("%s: %s: %s", r.ID, r.Status, r.Error)
}
