package satellite

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/stats"
)

// savingPairs are the stacks of the satellite preset that one compares
// with another, and what the satellite report measured for the same idea
// (picoquic over its emulated geostationary path): 0-RTT cut the transfer
// time by 14 % and its BDP_FRAME (resumed path state) by 58 %.
type savingPair struct {
	variant, base, what string
	reportPct           float64 // 0: the report has no figure
}

func savingPairs() []savingPair {
	return []savingPair{
		{"quic-go-0rtt", "quic-go", "0-RTT", 14},
		{"tcp-bdp", "tcp", "resumed path state", 58},
		{"tcp-pep", "tcp", "split-TCP PEP", 0},
	}
}

// writeSavings prints, for a plan with a stack axis, the transfer
// time each variant stack saves against its base stack at the same other
// labels (results.MetricTransferTime: 1 − variant ÷ base of the points'
// means), per object size and over all, beside the report's figure.
// Nothing for other plans.
func writeSavings(w io.Writer, t *results.SweepTable) {
	stack := slices.IndexFunc(t.Plan.Vary, func(a results.Axis) bool { return a.Key == axisStack })
	if stack < 0 {
		return
	}
	stacks := t.Plan.Vary[stack].Values
	key := func(r *results.SweepRow) string {
		k := ""
		for _, a := range t.Plan.Vary {
			if a.Key != axisStack {
				k += a.Key + "=" + r.Labels[a.Key] + " "
			}
		}
		return k
	}
	var tw *tabwriter.Writer
	for _, p := range savingPairs() {
		if !slices.Contains(stacks, p.variant) || !slices.Contains(stacks, p.base) {
			continue
		}
		base := map[string]float64{}
		for i := range t.Rows {
			r := &t.Rows[i]
			if st := r.Stats[results.MetricTransferTime]; r.Labels[axisStack] == p.base && st.N > 0 && st.Mean > 0 {
				base[key(r)] = st.Mean
			}
		}
		bySize := map[string][]float64{}
		var sizes []string
		for i := range t.Rows {
			r := &t.Rows[i]
			st := r.Stats[results.MetricTransferTime]
			b, ok := base[key(r)]
			if r.Labels[axisStack] != p.variant || !ok || st.N == 0 || math.IsNaN(st.Mean) {
				continue
			}
			size := r.Labels[axisSize]
			if _, seen := bySize[size]; !seen {
				sizes = append(sizes, size)
			}
			bySize[size] = append(bySize[size], 1-st.Mean/b)
		}
		if len(sizes) == 0 {
			continue
		}
		if tw == nil {
			fmt.Fprintf(w, "\ntransfer time saved (%s: 1 − variant ÷ base at the same other labels, mean over the points)\n", results.MetricTransferTime)
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "SAVED BY\tSTACKS\tSIZE\tPOINTS\tSAVED\tTHE REPORT")
		}
		report := "-"
		if p.reportPct > 0 {
			report = fmt.Sprintf("%.0f %%", p.reportPct)
		}
		var all []float64
		for _, s := range sizes {
			v := bySize[s]
			all = append(all, v...)
			fmt.Fprintf(tw, "%s\t%s vs %s\t%s\t%d\t%.1f %%\t%s\n", p.what, p.variant, p.base, s, len(v), 100*stats.Mean(v), report)
		}
		fmt.Fprintf(tw, "%s\t%s vs %s\tall\t%d\t%.1f %%\t%s\n", p.what, p.variant, p.base, len(all), 100*stats.Mean(all), report)
	}
	if tw != nil {
		tw.Flush()
	}
}
