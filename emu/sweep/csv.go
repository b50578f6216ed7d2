package sweep

import (
	"encoding/csv"
	"io"
	"strconv"
)

// Statistic columns written per metric, in order.
var statColumns = []string{"mean", "sd", "ci95", "n"}

// WriteCSV writes sweep.csv: one row per point with the point id, its value
// on every axis (the base value for an axis it does not vary), its run
// counts (runs_ok are in the statistics; runs_failed failed or were
// interrupted; runs_missing have not been run), then for every metric
// <metric>_mean, _sd, _ci95 (half-width of the 95 % confidence interval)
// and _n. Cells without a value (sd and ci95 of fewer than two runs) are
// empty.
func WriteCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	header := []string{"point"}
	for _, a := range t.Plan.Vary {
		header = append(header, a.Key)
	}
	header = append(header, "runs_ok", "runs_failed", "runs_missing")
	for _, m := range t.Metrics {
		for _, s := range statColumns {
			header = append(header, m+"_"+s)
		}
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range t.Rows {
		rec := []string{r.Point.ID}
		for _, a := range t.Plan.Vary {
			rec = append(rec, t.Plan.Label(r.Point, a))
		}
		rec = append(rec, strconv.Itoa(r.OK), strconv.Itoa(r.Failed), strconv.Itoa(r.Missing))
		for _, m := range t.Metrics {
			st := r.Stats[m]
			rec = append(rec, formatNum(st.Mean), formatNum(st.SD), formatNum(st.CI95), strconv.Itoa(st.N))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
