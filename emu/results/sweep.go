package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
)

// SweepTable is a sweep aggregated: per point, each metric's mean, standard
// deviation, 95 % confidence interval and n over the point's runs that
// count (metrics.md §5: one value per run, Student's t). It is written as
// sweep.csv and, by emu analyze, as a sweep's analysis.json.
type SweepTable struct {
	Plan *Plan `json:"-"`
	// Vary names the axes, in plan order.
	Vary []string `json:"vary"`
	// Metrics in column order.
	Metrics []string   `json:"metrics"`
	Rows    []SweepRow `json:"points"`
	// Runs is every run of the plan and what became of it.
	Runs []RunResult `json:"runs"`
	// KeptDegraded says the degraded runs are in the statistics.
	KeptDegraded bool `json:"kept_degraded"`
	// Warnings say where the statistics are thin: metrics some counted runs
	// lack, points with fewer than two counted runs.
	Warnings []string `json:"warnings"`
}

// SweepRow is one point of the table.
type SweepRow struct {
	Point *Point `json:"-"`
	ID    string `json:"id"`
	// Labels are the point's values on the axes (the base value for an axis
	// the point does not vary).
	Labels map[string]string `json:"labels"`
	Params map[string]string `json:"params"`
	// OK runs are in the statistics; Failed ones (failed or interrupted)
	// and Missing ones (not run, or left by another plan) are not.
	// Degraded runs ended ok but their emulation fell behind (summary.json's
	// fidelity): they are in the statistics only when the aggregation keeps
	// them (AggregateOptions.KeepDegraded in package sweep). The four
	// counts add up to the point's runs.
	OK       int             `json:"runs_ok"`
	Failed   int             `json:"runs_failed"`
	Missing  int             `json:"runs_missing"`
	Degraded int             `json:"runs_degraded"`
	Stats    map[string]Stat `json:"metrics"`
}

// RunResult is one run's status and metrics. Included says whether its
// metrics are in the statistics; Error says why not, when they are not.
type RunResult struct {
	Run
	Status   string             `json:"status"` // ok, degraded, failed, interrupted, missing
	Included bool               `json:"included"`
	Error    string             `json:"reason,omitempty"`
	Metrics  map[string]float64 `json:"-"`
	// Attempts is how many times the run was run (degraded attempts are
	// run again); 0 for a run not run.
	Attempts int `json:"attempts,omitempty"`
	// DurationS is the latest attempt's duration_s (summary.json).
	DurationS float64 `json:"duration_s,omitempty"`
}

// StatusMissing is the status of a run a sweep directory does not hold (not
// run yet, another shard's, or left by another plan).
const StatusMissing = "missing"

// StatusDegraded is the status of a run that ended ok but whose emulation
// fell behind what it was asked to emulate (its summary's fidelity says
// degraded): its figures may be the host's, not the network's.
const StatusDegraded = "degraded"

// DegradedRuns is the number of degraded runs of the table.
func (t *SweepTable) DegradedRuns() int {
	n := 0
	for _, r := range t.Rows {
		n += r.Degraded
	}
	return n
}

// Counts sums the rows' run counts.
func (t *SweepTable) Counts() (ok, failed, missing int) {
	for _, r := range t.Rows {
		ok += r.OK
		failed += r.Failed
		missing += r.Missing
	}
	return
}

func (r RunResult) String() string {
	if r.Error == "" {
		return fmt.Sprintf("%s: %s", r.ID, r.Status)
	}
	return fmt.Sprintf("%s: %s: %s", r.ID, r.Status, r.Error)
}

// Statistic columns written per metric, in order.
var statColumns = []string{"mean", "sd", "ci95", "n"}

// WriteSweepCSV writes sweep.csv: one row per point with the point id, its
// value on every axis (the base value for an axis it does not vary), its run
// counts (runs_ok are in the statistics; runs_failed failed or were
// interrupted; runs_missing have not been run; runs_degraded ended ok with
// a degraded emulation, in the statistics only when kept), then for every metric
// <metric>_mean, _sd, _ci95 (half-width of the 95 % confidence interval)
// and _n. Cells without a value (sd and ci95 of fewer than two runs) are
// empty.
func WriteSweepCSV(w io.Writer, t *SweepTable) error {
	cw := csv.NewWriter(w)
	header := []string{"point"}
	header = append(header, t.Vary...)
	header = append(header, "runs_ok", "runs_failed", "runs_missing", "runs_degraded")
	for _, m := range t.Metrics {
		for _, s := range statColumns {
			header = append(header, m+"_"+s)
		}
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range t.Rows {
		rec := []string{r.ID}
		for _, a := range t.Vary {
			rec = append(rec, r.Labels[a])
		}
		rec = append(rec, strconv.Itoa(r.OK), strconv.Itoa(r.Failed), strconv.Itoa(r.Missing), strconv.Itoa(r.Degraded))
		for _, m := range t.Metrics {
			st := r.Stats[m]
			rec = append(rec, FormatNumber(st.Mean), FormatNumber(st.SD), FormatNumber(st.CI95), strconv.Itoa(st.N))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// FormatNumber writes a number as sweep.csv does: six significant digits, "" for
// NaN (no value).
func FormatNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
