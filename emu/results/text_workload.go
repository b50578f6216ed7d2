package results

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// IsBulk reports whether a flow is a bulk transfer (summaries written
// before flow kinds existed have no kind: all their flows were).
func (f FlowResult) IsBulk() bool { return f.Kind == "" || f.Kind == "bulk" }

// writeWorkloads prints what flows other than bulk downloads measured: an
// upload's one-way delay, rr latency, cbr delivery and delay, object
// completion times and resumption.
func writeWorkloads(w io.Writer, s *Summary) {
	var lines [][2]string
	for _, f := range s.Flows {
		if f.IsBulk() && f.Direction != "up" {
			continue
		}
		lines = append(lines, [2]string{f.Name, workloadLine(f)})
	}
	if len(lines) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nFLOW\tKIND\tMEASURED")
	for _, l := range lines {
		fmt.Fprintf(tw, "%s\t%s\n", l[0], l[1])
	}
	tw.Flush()
}

func workloadLine(f FlowResult) string {
	var parts []string
	kind := f.Kind
	if f.Direction == "up" {
		kind += " up"
	}
	switch f.Kind {
	case "rr":
		parts = append(parts, fmt.Sprintf("%d transactions", f.Transactions))
		if l := f.LatencyMs; l != nil {
			parts = append(parts, "latency "+quantiles(l, "ms"))
		}
	case "cbr":
		if f.Sent != nil && f.Received != nil {
			parts = append(parts, fmt.Sprintf("%d of %d datagrams", *f.Received, *f.Sent))
		}
		if f.Loss != nil {
			parts = append(parts, fmt.Sprintf("loss %.2f%%", 100**f.Loss))
		}
		if f.Reordered != nil {
			parts = append(parts, fmt.Sprintf("%d reordered", *f.Reordered))
		}
		if f.OWDMs != nil {
			parts = append(parts, "one-way delay "+quantiles(f.OWDMs, "ms"))
		}
		if f.JitterMs != nil {
			parts = append(parts, fmt.Sprintf("jitter %.2f ms", *f.JitterMs))
		}
	case "objects":
		parts = append(parts, fmt.Sprintf("%d objects", len(f.Objects)))
		if c := f.FCTS; c != nil {
			parts = append(parts, "completion "+quantiles(c, "s"))
		}
		if n := len(f.Objects); n > 0 {
			var u float64
			for _, o := range f.Objects {
				u += o.Utilization
			}
			parts = append(parts, fmt.Sprintf("mean utilisation %.1f%%", 100*u/float64(n)))
		}
	default:
		if f.OWDMs != nil {
			parts = append(parts, "one-way delay "+quantiles(f.OWDMs, "ms"))
		}
	}
	if h := f.HandshakeMs; h != nil && f.Kind != "rr" || h != nil && h.N > 1 {
		parts = append(parts, fmt.Sprintf("set-up p50 %.1f ms", h.P50))
	}
	if r := f.Resume; r != nil {
		parts = append(parts, fmt.Sprintf("resume %s: %d of %d connections resumed, %d with 0-RTT (first connection: set-up %.1f ms)",
			r.Mode, r.Resumed, r.Connections, r.ZeroRTT, r.FirstHandshakeMs))
		if p := r.Path; p != nil {
			parts = append(parts, fmt.Sprintf("path state: min RTT %.1f ms, cwnd %d, delivery %.1f Mbit/s, initcwnd %d, %d fell back",
				p.MinRTTMs, p.Cwnd, p.DeliveryMbps, p.InitCwnd, p.Fallbacks))
		}
	}
	return kind + "\t" + strings.Join(parts, ", ")
}

// quantiles prints p50/p95/p99/max of st.
func quantiles(st *DelayStats, unit string) string {
	prec := 1
	if unit == "s" {
		prec = 3
	}
	return fmt.Sprintf("p50 %.*f / p95 %.*f / p99 %.*f / max %.*f %s", prec, st.P50, prec, st.P95, prec, st.P99, prec, st.Max, unit)
}

// bulkFlows counts the flows Jain's index is over.
func bulkFlows(s *Summary) int {
	n := 0
	for _, f := range s.Flows {
		if f.IsBulk() {
			n++
		}
	}
	return n
}
