package analysis

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/dc-emu/emu/emu/results"
)

// writeDelays prints the flows' RTT and one-way delay percentiles, when
// any flow has them.
func writeDelays(w io.Writer, ra *RunAnalysis) {
	any := false
	for _, f := range ra.Flows {
		any = any || f.RTTMs != nil || f.OWDMs != nil
	}
	if !any {
		return
	}
	fmt.Fprintln(w)
	tw := unitTable(w, "flow\tRTT p50\tp95\tp99\tmax\tfrom\tone-way p50\tp95\tp99\tmax\tstamps\t",
		"\tms\tms\tms\tms\t\tms\tms\tms\tms\t\t")
	for _, f := range ra.Flows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, delayCells(f.RTTMs), orDash(f.RTTSource), owdCells(f.OWDMs))
	}
	tw.Flush()
}

// unitTable starts a right-aligned table on w under its header line and the
// line of units beneath it.
func unitTable(w io.Writer, header, units string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, header)
	fmt.Fprintln(tw, units)
	return tw
}

func delayCells(d *results.DelayStats) string {
	if d == nil {
		return "-\t-\t-\t-"
	}
	return fmt.Sprintf("%.2f\t%.2f\t%.2f\t%.2f", d.P50, d.P95, d.P99, d.Max)
}

func owdCells(d *results.DelayStats) string {
	if d == nil {
		return "-\t-\t-\t-\t-\t"
	}
	return fmt.Sprintf("%s\t%d\t", delayCells(d), d.N)
}
