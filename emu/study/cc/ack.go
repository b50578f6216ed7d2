package cc

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/dc-emu/emu/emu/findings"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// The lfn preset's ACK axis: the QUIC flows are ngtcp2's, their receiver
// (the client) acknowledging at once after 2 ack-eliciting packets (RFC
// 9000's recommendation, ngtcp2's default) or after 20, the value the
// long-fat-network study raised it to.
const (
	// AckAxis is the axis's key; AckDefault its baseline value.
	AckAxis    = "ack"
	AckDefault = "2"
	AckRaised  = "20"
	// LFN is the long-fat-network preset's name.
	LFN = "lfn"
)

// ackValue is the axis value that makes every QUIC flow ngtcp2 with ACK
// threshold n. The shorthands reach the TCP flows of a mix too: those
// flows set proto=tcp, which gives them emu's Go endpoints back, and set
// their own ack_thresh to the default (mix), since kernel TCP takes none.
func ackValue(n string) sweep.Value {
	return sweep.Value{Label: n, Set: []string{"flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2", "flow.ack_thresh=" + n}}
}

func ackAxis() results.Axis {
	a := sweep.Labeled(AckAxis, ackValue(AckDefault), ackValue(AckRaised))
	a.Baseline = AckDefault
	return a
}

// The reference study's figures: one QUIC stream at 39–42 Mbit/s with a
// threshold of 2 and 62–68 with 20, at every RTT; four competing streams
// at 21–35 and 36–53 each. The gains are the ranges' extreme ratios.
const (
	oneStreamGainLo, oneStreamGainHi   = 62.0 / 42, 68.0 / 39
	fourStreamGainLo, fourStreamGainHi = 36.0 / 35, 53.0 / 21
	// gainTol widens the ranges: the reference gives its goodputs to the
	// Mbit/s and from few runs.
	gainTol = 0.10
)

// AckFinding is the long-fat-network study's finding about the ACK
// threshold, judged on the lfn preset's points at the given RTT labels
// (all of the preset's when none are given): at each RTT, one QUIC flow
// (flows=1q) and four competing ones (4q) move more with a threshold of 20
// than with 2, and by the reference's factor.
func AckFinding(rtts ...string) findings.Finding {
	line := func(flows, ack string) findings.Line {
		l := findings.LineAlong(LFN, "rtt", "flows", flows, AckAxis, ack)
		if len(rtts) > 0 {
			l = l.Only(rtts...)
		}
		return l
	}
	goodput := func(flows, ack string) findings.Series {
		return findings.SeriesAlong(results.MetricGoodput, line(flows, ack))
	}
	gain := func(flows string) findings.Series {
		return findings.SeriesAlong(results.MetricRelativeGoodput, line(flows, AckRaised))
	}
	return findings.Finding{
		ID: "lfn-ack", Figures: "LFN study, ACK threshold", Title: "QUIC receiver's ACK threshold 2 against 20 at 1 Gbit/s, RTT 1–180 ms",
		Paper: "Raising the QUIC receiver's threshold from 2 to 20 ack-eliciting packets before an immediate ACK raised one QUIC stream from 39–42 to 62–68 Mbit/s " +
			"at every RTT, and 4 competing streams from 21–35 to 36–53 Mbit/s: the endpoint spent its time on per-packet work, so fewer ACKs meant more data.",
		Shape: []findings.Check{
			findings.GreaterAlong(goodput("1q", AckRaised), goodput("1q", AckDefault)),
			findings.GreaterAlong(goodput("4q", AckRaised), goodput("4q", AckDefault)),
		},
		Magnitude: []findings.Check{
			findings.InRange(gain("1q"), oneStreamGainLo, oneStreamGainHi, findings.Rel(gainTol)),
			findings.InRange(gain("4q"), fourStreamGainLo, fourStreamGainHi, findings.Rel(gainTol)),
		},
		Unjudged: "The gain is the total goodput with 20 over that with 2 at the same RTT and flows (relative_goodput); the reference's ranges give " +
			"one stream ×" + fmt.Sprintf("%.2f–%.2f", oneStreamGainLo, oneStreamGainHi) + " and four ×" + fmt.Sprintf("%.2f–%.2f", fourStreamGainLo, fourStreamGainHi) +
			". The reference's endpoint was bound by its per-packet work; read the emulator's and the clients' CPU beside each point: a gain is the endpoints' " +
			"only while the emulator keeps up (fidelity ok) and the clients are near a core.",
	}
}

// study is the congestion-control study: its presets, and the lfn ACK
// table with the finding's verdict.
type study struct{ presets []sweep.Preset }

// Presets returns the presets.
func (s study) Presets() []sweep.Preset { return s.presets }

// Figures draws nothing beyond the engine's (the relative-goodput heat
// map of the ack axis is one of them).
func (study) Figures(*results.SweepTable) ([]sweep.Figure, error) { return nil, nil }

// Tables writes, for a sweep with the lfn preset's rtt and ack axes, each
// point with runs, its goodput, its gain over the threshold of 2, the
// ACKs per data packet where emu analyze counted them, and the CPU of the
// QUIC clients and of the emulator; then the ACK finding judged at the
// RTTs the sweep has runs of.
func (study) Tables(w io.Writer, t *results.SweepTable) { writeAckTable(w, t) }

func readsAck(t *results.SweepTable) bool {
	if t == nil || t.Plan == nil {
		return false
	}
	keys := map[string]bool{}
	for _, a := range t.Plan.Vary {
		keys[a.Key] = true
	}
	return keys["rtt"] && keys["flows"] && keys[AckAxis]
}

func writeAckTable(w io.Writer, t *results.SweepTable) {
	if !readsAck(t) {
		return
	}
	fmt.Fprintf(w, "\nACK threshold (lfn): QUIC goodput, its gain over ack=%s, and where the CPU went\n", AckDefault)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rtt\tflows\tack\tgoodput\tgain\tACKs per data packet\tQUIC client CPU\temulator CPU\truns\t")
	fmt.Fprintln(tw, "\t\t\tMbit/s\t×\t(emu analyze)\tcores, mean\tcores\t\t")
	var judged []string
	have := map[string]map[string]bool{} // rtt → ack values with runs of 1q and 4q
	for _, r := range t.Rows {
		ack := r.Labels[AckAxis]
		if ack != AckDefault && ack != AckRaised || !strings.Contains(r.Labels["flows"], "q") {
			continue // a TCP-only mix has no QUIC receiver
		}
		if r.OK+r.Degraded == 0 {
			continue // not run (a slice: --only)
		}
		g := r.Stats[results.MetricGoodput]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.Labels["rtt"], r.Labels["flows"], ack,
			g.Text(1), r.Stats[results.MetricRelativeGoodput].Text(2),
			meanOf(r.Stats, results.QAcksPerDataPacket, 3), meanOf(r.Stats, results.QClientCPU, 2),
			r.Stats[results.MetricEmulatorCPU].Text(2), r.OK+r.Degraded)
		if g.N > 0 && (r.Labels["flows"] == "1q" || r.Labels["flows"] == "4q") {
			if have[r.Labels["rtt"]] == nil {
				have[r.Labels["rtt"]] = map[string]bool{}
			}
			have[r.Labels["rtt"]][r.Labels["flows"]+ack] = true
		}
	}
	tw.Flush()
	for _, a := range t.Plan.Vary {
		if a.Key != "rtt" {
			continue
		}
		for _, v := range a.Values {
			if h := have[v]; h["1q"+AckDefault] && h["1q"+AckRaised] && h["4q"+AckDefault] && h["4q"+AckRaised] {
				judged = append(judged, v)
			}
		}
	}
	if len(judged) == 0 {
		fmt.Fprintln(w, "finding lfn-ack: not judged (no RTT with runs of 1q and 4q at both thresholds)")
		return
	}
	res := findings.Evaluate([]findings.Finding{AckFinding(judged...)}, findings.Results{LFN: findings.FromTable(LFN, t)})[0]
	fmt.Fprintf(w, "finding lfn-ack at rtt %s: %s (%s)\n", strings.Join(judged, ", "), res.Verdict, res.Reason)
	for _, c := range res.Checks {
		fmt.Fprintf(w, "  %s %s: %s\n    %s\n", c.Part, c.Verdict, c.Rule, c.Detail)
	}
}

// meanOf is the mean over a point's QUIC flows (flow.quicN.q) of their
// means, or "-" where none has it.
func meanOf(stats map[string]results.Stat, q string, prec int) string {
	var vs []float64
	for _, m := range slices.Sorted(maps.Keys(stats)) {
		if strings.HasPrefix(m, "flow.quic") && strings.HasSuffix(m, "."+q) && stats[m].N > 0 && !math.IsNaN(stats[m].Mean) {
			vs = append(vs, stats[m].Mean)
		}
	}
	if len(vs) == 0 {
		return "-"
	}
	sum := 0.0
	for _, v := range vs {
		sum += v
	}
	return fmt.Sprintf("%.*f", prec, sum/float64(len(vs)))
}
