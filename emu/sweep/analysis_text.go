package sweep

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/dc-emu/emu/emu/results"
)

// analysisColumns picks, sorted, the metrics emu analyze shows for a sweep.
func analysisColumns(names []string) []string {
	var cols []string
	for _, n := range names {
		if isFlowMetric(n) || n == results.MetricJFI ||
			(strings.HasPrefix(n, "link.") && strings.HasSuffix(n, ".utilization")) ||
			(strings.HasPrefix(n, "pdcp.") && strings.HasSuffix(n, ".repairs")) {
			cols = append(cols, n)
		}
	}
	slices.Sort(cols)
	return cols
}

// WriteAnalysis prints a sweep table as emu analyze SWEEP does: every point's
// goodput per flow, JFI, link utilization and PDCP repairs (mean ± 95 % CI
// half-width over the runs that count), and the runs left out and why.
func WriteAnalysis(w io.Writer, t *results.SweepTable) {
	counts := map[string]int{}
	for _, r := range t.Runs {
		counts[r.Status]++
	}
	var parts []string
	for s, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, s))
	}
	sort.Strings(parts)
	vary := strings.Join(t.Vary, ", ")
	if vary == "" {
		vary = "-"
	}
	fmt.Fprintf(w, "sweep: %d points, %d runs (%s); varied %s\n", len(t.Rows), len(t.Runs), strings.Join(parts, ", "), vary)
	if t.KeptDegraded {
		fmt.Fprintln(w, "cells: mean ± 95 % CI half-width over the runs with status ok, degraded ones included (--keep-degraded)")
	} else {
		fmt.Fprintln(w, "cells: mean ± 95 % CI half-width over the runs with status ok and an emulation that kept up")
	}
	fmt.Fprintln(w)
	cols := analysisColumns(t.Metrics)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := []string{"point"}
	header = append(header, t.Vary...)
	header = append(header, "runs")
	header = append(header, cols...)
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	for _, r := range t.Rows {
		row := []string{r.ID}
		for _, k := range t.Vary {
			row = append(row, r.Labels[k])
		}
		counted := r.OK
		if t.KeptDegraded {
			counted += r.Degraded
		}
		row = append(row, fmt.Sprint(counted))
		for _, c := range cols {
			row = append(row, statCell(r.Stats[c]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	for _, r := range t.Runs {
		if !r.Included {
			fmt.Fprintf(w, "left out: %s (%s) %s\n", r.ID, r.Status, r.Error)
		}
	}
}

// statCell prints mean ± CI half-width with as many decimals as the
// half-width's two significant digits need.
func statCell(st results.Stat) string {
	switch {
	case st.N == 0:
		return "-"
	case st.N < 2 || math.IsNaN(st.CI95):
		return fmt.Sprintf("%.4g (n=1)", st.Mean)
	}
	dec := 3
	if st.CI95 > 0 {
		dec = min(max(1-int(math.Floor(math.Log10(st.CI95))), 0), 6)
	}
	return fmt.Sprintf("%.*f ± %.*f", dec, st.Mean, dec, st.CI95)
}
