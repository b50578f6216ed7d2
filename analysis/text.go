package analysis

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/results"
)

// Table cells: "-" for unknown values.
func anFloat(v NullFloat, prec int) string {
	if !v.Valid() {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, float64(v))
}

func anInt(v *int64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprint(*v)
}

func anKB(v *int64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(*v)/1000)
}

func anPercent(v NullFloat) string {
	if !v.Valid() {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(v))
}

// WriteRun prints a run's analysis as emu analyze RUN does.
func WriteRun(w io.Writer, ra *RunAnalysis) {
	name := ra.Run
	if name == "" {
		name = "(no " + results.SummaryFile + ")"
	}
	fmt.Fprintf(w, "run %s: scenario %s, status %s, seed %s, %s s\n\n", name, orDash(ra.Scenario), orDash(ra.Status), orDash(ra.Seed), anFloat(ra.DurationS, 1))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "flow\tgoodput\tmean sRTT\tp95 sRTT\tmax cwnd\tlost\treordered\tbytes received\t")
	fmt.Fprintln(tw, "\tMbit/s\tms\tms\tkB\tpackets\tpackets\tB\t")
	for _, f := range ra.Flows {
		reord := anInt(f.ReorderedPackets)
		if f.ReorderedPackets != nil && f.ReorderedRatio.Valid() {
			reord += fmt.Sprintf(" (%.2f%%)", 100*float64(f.ReorderedRatio))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", f.Name, anFloat(f.GoodputMbps, 2), anFloat(f.MeanSRTTMs, 3),
			anFloat(f.P95SRTTMs, 3), anKB(f.MaxCwndBytes), anInt(f.PacketsLost), reord, anInt(f.BytesReceived))
	}
	tw.Flush()
	writeAcks(w, ra)
	writeDelays(w, ra)
	writeWorkloads(w, ra)
	fmt.Fprintf(w, "\nJFI %s over the flows' goodput", anFloat(ra.JFI, 3))
	if ra.JFIActive.Valid() {
		fmt.Fprintf(w, "; %s while all flows are active (%s-%s s)", anFloat(ra.JFIActive, 3),
			anFloat(ra.ActiveWindowS[0], 1), anFloat(ra.ActiveWindowS[1], 1))
	}
	fmt.Fprintln(w)
	if len(ra.Links) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "link\tcapacity\tthroughput\tutilization\t")
		fmt.Fprintln(tw, "\tMbit/s\tMbit/s\t\t")
		for _, l := range ra.Links {
			fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\t\n", l.Name, l.Dir, anFloat(l.CapacityMbps, 2), anFloat(l.ThroughputMbps, 2), anPercent(l.Utilization))
		}
		tw.Flush()
		var dirs []string
		for d, u := range ra.Utilization {
			dirs = append(dirs, d+" "+anPercent(u))
		}
		sort.Strings(dirs)
		fmt.Fprintf(w, "link utilization: %s\n", strings.Join(dirs, ", "))
		for _, l := range ra.Links {
			if len(l.DelayJumpsS) > 0 {
				fmt.Fprintf(w, "%s %s: %s\n", l.Name, l.Dir, jumpsText(l.DelayJumpsS, l.DelayJumpPeriodS))
			}
		}
	}
	dirs := make([]string, 0, len(ra.PDCP))
	for d := range ra.PDCP {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		p := ra.PDCP[d]
		fmt.Fprintf(w, "PDCP %s: %d repairs (PDUs put back in order), %d held, %d delivered on t-Reordering expiry, %d duplicates discarded, %d out of window, max buffer %d\n",
			d, p.Repairs, p.Held, p.ExpiredDeliveries, p.DuplicatesDiscarded, p.OutOfWindow, p.MaxBuffer)
		for _, l := range results.FlowControlLines(p.FlowControl) {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	if ra.Fidelity != nil {
		fmt.Fprintln(w)
		fidelity.WriteText(w, *ra.Fidelity, false)
	}
}

// writeAcks says, for each flow whose receiver took an ACK threshold
// (flow.ack_thresh), how often it acknowledged: its ACK frames per packet
// of stream data, from its qlog.
func writeAcks(w io.Writer, ra *RunAnalysis) {
	for _, f := range ra.Flows {
		if f.AckThresh == 0 {
			continue
		}
		if f.AcksPerDataPacket == nil {
			fmt.Fprintf(w, "flow %s: ACK threshold %d; no receiver qlog with data to count its ACKs in\n", f.Name, f.AckThresh)
			continue
		}
		per := "-"
		if r := *f.AcksPerDataPacket; r > 0 {
			per = fmt.Sprintf("%.2f", 1/r)
		}
		fmt.Fprintf(w, "flow %s: ACK threshold %d: %d ACK frames for %d data packets received, %.3f per data packet (%s data packets per ACK)\n",
			f.Name, f.AckThresh, *f.AckFrames, *f.DataPackets, *f.AcksPerDataPacket, per)
	}
}

// jumpsText says when a delay trace jumped: "delay trace jumped 4 times,
// every 14.99 s (at 8.75, 23.73, 38.74, 53.72 s)".
func jumpsText(at []float64, periodS float64) string {
	times := make([]string, len(at))
	for i, a := range at {
		times[i] = strconv.FormatFloat(a, 'f', 2, 64)
	}
	period := ""
	if periodS > 0 {
		period = fmt.Sprintf(", every %.2f s", periodS)
	}
	return fmt.Sprintf("delay trace jumped %d times%s (at %s s)", len(at), period, strings.Join(times, ", "))
}

// WriteQlog prints one qlog file's analysis as emu analyze FILE does.
func WriteQlog(w io.Writer, a *ConnAnalysis) {
	t := a.Totals
	fmt.Fprintf(w, "%s: %s %s, %d events over %.1f ms", a.File, a.Producer, orDash(a.Vantage), a.Events, a.DurationMs)
	if !a.WallClock.IsZero() {
		fmt.Fprintf(w, ", started %s", a.WallClock.Format(time.RFC3339Nano))
	}
	fmt.Fprintln(w)
	if a.Truncated != "" {
		fmt.Fprintln(w, "(cut short: figures cover the complete records only)")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "bytes received\t%d B of stream data (unique)\n", t.BytesReceived)
	fmt.Fprintf(tw, "goodput\t%s Mbit/s first to last stream byte (%s to %s ms); QUIC packets %s Mbit/s\n",
		anFloat(t.GoodputMbps, 1), anFloat(t.FirstByteMs, 2), anFloat(t.LastByteMs, 2), anFloat(t.ThroughputMbps, 1))
	fmt.Fprintf(tw, "packets\t%d sent (%d B), %d received (%d B), %d lost, %d spurious losses\n",
		t.PacketsSent, t.PacketBytesSent, t.PacketsReceived, t.PacketBytesReceived, t.PacketsLost, t.SpuriousLosses)
	fmt.Fprintf(tw, "max cwnd\t%d B\n", t.MaxCwndBytes)
	fmt.Fprintf(tw, "smoothed RTT\tmean %s ms, p95 %s ms over %d samples; min RTT %s ms, max latest RTT %s ms\n",
		anFloat(t.MeanSRTTMs, 3), anFloat(t.P95SRTTMs, 3), t.RTTSamples, anFloat(t.MinRTTMs, 3), anFloat(t.MaxLatestRTT, 3))
	r := a.Reordering
	fmt.Fprintf(tw, "reordered\t%d of %d 1-RTT packets (%.2f%%), max extent %d, max late %.2f ms, %d at distance ≥ 3\n",
		r.Reordered, r.Received, 100*r.Ratio, r.MaxExtent, r.MaxLateMs, r.DistanceGE3)
	fmt.Fprintf(tw, "congestion\t%d entries into recovery, %d state changes logged\n", t.CongestionEvents, len(a.CongestionStates))
	tw.Flush()
	for _, n := range a.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
