package results

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// writeDelays prints the rtt_ms and owd_ms of the flows that have them.
func writeDelays(w io.Writer, s *Summary) {
	any := false
	for _, f := range s.Flows {
		any = any || f.RTTMs != nil || f.OWDMs != nil
	}
	if !any {
		return
	}
	cells := func(d *DelayStats) string {
		if d == nil {
			return "-\t-\t-"
		}
		return fmt.Sprintf("%.1f ms\t%.1f ms\t%.1f ms", d.P50, d.P95, d.P99)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nFLOW\tRTT P50\tP95\tP99\tONE-WAY P50\tP95\tP99")
	for _, f := range s.Flows {
		if f.RTTMs != nil || f.OWDMs != nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, cells(f.RTTMs), cells(f.OWDMs))
		}
	}
	tw.Flush()
}
