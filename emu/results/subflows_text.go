package results

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// writeSubflows prints, for each MPTCP flow, its subflows: the link each
// took, its share of the bytes, RTT, largest window and retransmissions.
func writeSubflows(w io.Writer, flows []FlowResult) {
	for _, f := range flows {
		if f.SubflowTotals == nil {
			continue
		}
		t := f.SubflowTotals
		fmt.Fprintf(w, "\nMPTCP %s: %d subflows, %s acknowledged, %s sent (%s retransmitted, %d segments)\n",
			f.Name, t.Subflows, HumanBytes(t.BytesAcked), HumanBytes(t.BytesSent), HumanBytes(t.BytesRetrans), t.TotalRetrans)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SUBFLOW\tLINK\tCLIENT\tCC\tACKED\tSHARE\tSRTT P50/P95\tMAX CWND\tRETRANS\tSAMPLED")
		for _, sf := range f.Subflows {
			link := sf.Link
			if link == "" {
				link = "?"
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%.1f%%\t%.1f/%.1f ms\t%s\t%d\t%.1f–%.1f s\n",
				sf.ID, link, sf.Remote, sf.CC, HumanBytes(sf.BytesAcked), 100*sf.Share, sf.SRTTMs.P50, sf.SRTTMs.P95,
				HumanBytes(sf.MaxCwndBytes), sf.TotalRetrans, sf.FirstS, sf.LastS)
		}
		tw.Flush()
	}
}
