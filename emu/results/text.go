package results

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/dc-emu/emu/emu/fidelity"
)

// WriteReport prints a run's summary for the terminal: per-flow goodput
// and delays, the flows' JFI, link utilization and the PDCP repairs.
func WriteReport(w io.Writer, s *Summary, dir string) {
	fmt.Fprintf(w, "\nrun %s: %s in %.1f s (scenario %s, seed %d)\n", s.Run, s.Status, s.DurationS, s.Scenario, s.Seed)
	if s.Error != "" {
		fmt.Fprintf(w, "error: %s\n", s.Error)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nFLOW\tPATH\tPROTO\tSERVER→CLIENT\tCC\tBYTES\tTIME\tGOODPUT")
	for _, f := range s.Flows {
		state := ""
		if !f.Complete {
			state = " (incomplete)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s→%s\t%s\t%s\t%.2f s\t%.2f Mbit/s%s\n",
			f.Name, f.Path, f.Proto, f.ServerImpl, f.ClientImpl, f.CC, HumanBytes(f.Bytes), f.Seconds, f.GoodputMbps, state)
	}
	tw.Flush()
	writeDelays(w, s)
	if bulk := bulkFlows(s); bulk > 1 {
		fmt.Fprintf(w, "Jain's fairness index over %d flows: %.3f\n", bulk, s.JFI)
	}
	writeSubflows(w, s.Flows)
	writeWorkloads(w, s)
	if len(s.Links) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\nLINK\tRATE\tCAPACITY\tTHROUGHPUT\tUTILIZATION\tQUEUE DROPS\tQUEUE DELAY p50/p95/max")
		for _, l := range s.Links {
			src := l.RateSource
			if l.Trace != "" {
				src = "trace " + l.Trace
			}
			fmt.Fprintf(tw, "%s.%s\t%s\t%.2f Mbit/s\t%.2f Mbit/s\t%.1f%%\t%d\t%s\n", l.Name, l.Dir, src, l.CapacityMbps, l.ThroughputMbps, 100*l.Utilization, l.Drops, queueDelayText(l.QueueDelayMs))
		}
		tw.Flush()
	}
	WritePDCP(w, s.PDCP)
	if s.Fidelity != nil {
		fmt.Fprintln(w)
		fidelity.WriteText(w, *s.Fidelity, false)
	}
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	if dir != "" {
		fmt.Fprintf(w, "\nresults: %s   (emu analyze %s for plots)\n", dir, dir)
	}
}

// queueDelayText is a link's measured queueing delay for the link table.
func queueDelayText(d *DelayStats) string {
	if d == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f/%.1f/%.1f ms", d.P50, d.P95, d.Max)
}

// HumanBytes prints a byte count with an SI unit for people.
func HumanBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// WritePDCP prints each PDCP direction's counters, a line each, in the
// directions' order.
func WritePDCP(w io.Writer, pdcp map[string]PDCPCounters) {
	dirs := make([]string, 0, len(pdcp))
	for d := range pdcp {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		c := pdcp[d]
		fmt.Fprintf(w, "\nPDCP %s: %d PDUs on link1, %d on link2; %d reordered and repaired, %d held (max %d at once, hold p95 %.1f ms), %d delivered past a gap on expiry, %d duplicates and %d late/out-of-window discarded\n",
			d, c.TxLink1, c.TxLink2, c.Reordered, c.Held, c.MaxBuffer, c.HoldMs["p95"], c.ExpiredDeliveries, c.DuplicatesDiscarded, c.OutOfWindow)
		if b := c.Batch; b != nil && b.SocketWaitMs["n"] > 0 {
			fmt.Fprintf(w, "  batch path: PDUs waited %.2f ms in the receiving gateway's socket over the run, %.2f ms in the worst second\n",
				b.SocketWaitMs["mean"], b.SocketWaitMs["max"])
		}
		if b := c.Batch; b != nil && b.RealtimeSwitches > 0 {
			fmt.Fprintf(w, "  batch path: loops real-time (while light) %.1f s sending, %.1f s receiving; %d switches\n", b.SendRealtimeS, b.ReceiveRealtimeS, b.RealtimeSwitches)
		}
		if b := c.Batch; b != nil && b.TunnelSent > 0 {
			fmt.Fprintf(w, "  batch path: %d packets of the other clients crossed in the same UDP, unnumbered; %d delivered\n", b.TunnelSent, b.TunnelDelivered)
		}
		for _, l := range FlowControlLines(c.FlowControl) {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

// FlowControlLines is one direction's flow-control account for people, a
// line each, unindented: each leg's reports, how long the host had a PDU it
// had no credit for, and its last desired buffer size; then the host's
// buffer: the SDUs that waited in it for credit and how long, those it
// dropped before they got an SN, and the most it held. None when fc is nil
// (dc.fc=off). The terminal summary and emu analyze both print them.
func FlowControlLines(fc *FlowControl) []string {
	if fc == nil {
		return nil
	}
	legs := make([]string, len(fc.Legs))
	for i, l := range fc.Legs {
		stale := ""
		if l.StaleReports > 0 {
			stale = fmt.Sprintf(", %d stale", l.StaleReports)
		}
		legs[i] = fmt.Sprintf("%s: %d reports (%d at 0%s), credit-limited %.2f s, last DBS %s",
			l.Link, l.Reports, l.ReportsOnZero, stale, l.CreditLimitedS, HumanBytes(int64(l.DesiredBufferLast)))
	}
	var out []string
	if len(legs) > 0 {
		out = append(out, "flow control: "+strings.Join(legs, "; "))
	}
	wait := ""
	if p95, ok := FlowControlWaitP95(fc); ok {
		wait = fmt.Sprintf(" (wait p50 %.1f ms, p95 %.1f ms)", fc.HostWaitMs["p50"], p95)
	}
	return append(out, fmt.Sprintf("flow control: host held %d SDUs%s, dropped %d before an SN, buffer max %s",
		fc.HostHeld, wait, fc.HostDropped, HumanBytes(int64(fc.HostBufferBytesMax))))
}

// FlowControlWaitP95 is the 95th percentile of the time SDUs waited in the
// PDCP host's buffer for credit, ms; ok false when none waited (no p95, or
// a count n of 0).
func FlowControlWaitP95(fc *FlowControl) (p95 float64, ok bool) {
	if fc == nil {
		return 0, false
	}
	p95, ok = fc.HostWaitMs["p95"]
	if n, counted := fc.HostWaitMs["n"]; counted && n == 0 {
		return 0, false
	}
	return p95, ok
}
