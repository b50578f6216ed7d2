package findings

import "github.com/dc-emu/emu/emu/results"

// Tolerances of the rules. The paper gives JFIs to two decimals (four near
// 1); throughput words such as "close" or "hardly affected" have no number,
// and emu reads them as within 10 %.
const (
	// JFITol is the tolerance of a JFI the paper gives to two decimals.
	JFITol = 0.05
	// JFITolNearOne is the tolerance of a JFI near 1 the paper gives to
	// two or four decimals (1.00, 0.9996, 0.9903): JFI's scale is
	// compressed there.
	JFITolNearOne = 0.01
	// CloseTol is emu's reading of "close", "little difference", "hardly
	// affected": within 10 % of the larger value.
	CloseTol = 0.10
)

// Stacks of the paper presets' "stack" axis (emu/study/paper).
const (
	StackQuicDefault = "quic-default"
	StackQuicLarge   = "quic-large"
	StackTCPReno     = "tcp-reno"
	StackTCPCubic    = "tcp-cubic"
	StackNgtcp2Reno  = "ngtcp2-reno"
	StackNgtcp2Cubic = "ngtcp2-cubic"
)

const stackAxis = "stack"

// at names a point: a preset and axis=value pairs.
func at(preset string, kv ...string) At {
	return At{Preset: preset, Labels: pairs(kv)}
}

// along names a line: a preset, its axis, and the other axes' values.
func along(preset, axis string, kv ...string) Line {
	return Line{Preset: preset, Axis: axis, Fixed: pairs(kv)}
}

func pairs(kv []string) map[string]string {
	if len(kv)%2 != 0 {
		panic("reproduce: odd label list") // a typo in the table; the tests catch it
	}
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func term(metric string, a At) Term       { return Term{At: a, Metric: metric} }
func series(metric string, l Line) Series { return Series{Line: l, Metric: metric} }

var (
	dc    = results.FlowGoodput("dc")
	link1 = results.FlowGoodput("link1")
	link2 = results.FlowGoodput("link2")
)

// Findings returns the paper's findings, one per row of
// docs/paper-findings.md, in the paper's order: the quic-go repeats of
// Figs. 4–11 (quic-go stands in for aioquic), the ngtcp2 repeats
// (Figs. 12–19), the trace repeats (Figs. 20–22), and the queue study.
func Findings() []Finding {
	return append(append(coreFindings(), ngtcp2Findings()...), traceFindings()...)
}

func coreFindings() []Finding {
	const (
		batch, split, bw, bwm = "dc.batch", "dc.split", "link.bw_ratio", "link.bw_ratio+dc.split"
		dr, loss              = "link.delay_ratio", "link.loss"
		ql, qd, tr            = StackQuicLarge, StackQuicDefault, StackTCPReno
	)
	return []Finding{
		{
			ID: "fig4a", Figures: "Fig. 4a", Title: "throughput vs batch size (QUIC default buffer, QUIC modified buffer, TCP)",
			Paper: "Larger batches lower throughput: one link idles while the other carries a batch. Too small batches cost through reordering. The best batch lies around 100–150, depending on the protocol. QUIC with the modified buffer is close to TCP over much of the range; QUIC needs the larger buffer to match TCP.",
			Shape: []Check{
				ArgmaxIn(series(results.MetricGoodput, along("batch", batch, stackAxis, ql)), "100", "150"),
				Greater(term(results.MetricGoodput, at("batch", batch, "150", stackAxis, ql)), term(results.MetricGoodput, at("batch", batch, "500", stackAxis, ql))),
				Greater(term(results.MetricGoodput, at("batch", batch, "150", stackAxis, tr)), term(results.MetricGoodput, at("batch", batch, "500", stackAxis, tr))),
				Greater(term(results.MetricGoodput, at("batch", batch, "150", stackAxis, qd)), term(results.MetricGoodput, at("batch", batch, "500", stackAxis, qd))),
				WithinAlong(series(results.MetricGoodput, along("batch", batch, stackAxis, ql)), series(results.MetricGoodput, along("batch", batch, stackAxis, tr)), Rel(CloseTol), 0.5),
				Greater(term(results.MetricGoodput, at("batch", batch, "100", stackAxis, ql)), term(results.MetricGoodput, at("batch", batch, "100", stackAxis, qd))),
			},
			Unjudged: "The cost of small batches is judged through the argmax (25 and 50 below the best); \"much of the range\" is read as at least half the batch sizes.",
		},
		{
			ID: "fig4bc", Figures: "Figs. 4b, 4c", Title: "link utilisation over time at batch 50 and 500",
			Paper: "At batch 500 there are long stretches in which one link is underused.",
			Shape: []Check{
				Greater(term(results.MetricUnderused, at("batch", batch, "500", stackAxis, ql)), term(results.MetricUnderused, at("batch", batch, "50", stackAxis, ql))),
			},
			Unjudged: "\"Long stretches\" has no number: the share of 100 ms bins with a link below half its capacity must be larger at 500 than at 50.",
		},
		{
			ID: "fig5a", Figures: "Fig. 5a", Title: "fairness vs batch size",
			Paper: "Fairness falls with large batches. The DC client's throughput drops markedly from batch 150 up, as the single-link clients take the link during DC's off periods.",
			Shape: []Check{
				Greater(term(results.MetricJFI, at("batch-fairness", batch, "100")), term(results.MetricJFI, at("batch-fairness", batch, "500"))),
				Decreasing(series(dc, along("batch-fairness", batch).Only("100", "150", "300", "500"))),
				Greater(term(link1, at("batch-fairness", batch, "500")), term(dc, at("batch-fairness", batch, "500"))),
				Greater(term(link2, at("batch-fairness", batch, "500")), term(dc, at("batch-fairness", batch, "500"))),
			},
		},
		{
			ID: "fig5b", Figures: "Fig. 5b", Title: "3-minute throughput of the three clients at the defaults",
			Paper: "Short-term unfairness persists at time scales up to about 30 s; 3-minute runs averaged over 10 repeats filter it out.",
			Shape: []Check{
				Greater(term(results.MetricJFI, at("batch-fairness", batch, "100")), term(results.MetricJFI1s, at("batch-fairness", batch, "100"))),
				Greater(term(results.MetricJFI10s, at("batch-fairness", batch, "100")), term(results.MetricJFI1s, at("batch-fairness", batch, "100"))),
			},
			Unjudged: "The 30 s time scale is not judged: the quick scale's 60 s runs have two 30 s windows.",
		},
		{
			ID: "appA", Figures: "App. A", Title: "pairs of single-link clients: QUIC–QUIC, QUIC–TCP, TCP–TCP",
			Paper: "Reference traces of competing single-path flows.",
			Extra: []string{"sc-pairs"}, Unjudged: "The paper states no finding to judge; emu's figures and table are shown for reference.",
		},
		{
			ID: "fig6", Figures: "Fig. 6", Title: "link utilisation at split 9:1",
			Paper: "The lightly loaded link almost never reaches its capacity, even in bursts.",
			Shape: []Check{
				Below(term(results.LinkUtilizationP99("link2"), at("split", split, "9:1", stackAxis, ql)), 0.9),
				Greater(term(results.LinkUtilizationP99("link1"), at("split", split, "9:1", stackAxis, ql)), term(results.LinkUtilizationP99("link2"), at("split", split, "9:1", stackAxis, ql))),
			},
			Unjudged: "\"Almost never, even in bursts\" is read as: the 99th percentile of link2's 100 ms utilisation stays below 90 %.",
		},
		{
			ID: "fig7a", Figures: "Fig. 7a", Title: "throughput vs split (percent on eno1)",
			Paper: "Throughput peaks at 50/50 and falls convexly as the split becomes uneven.",
			Shape: []Check{
				ArgmaxIn(series(results.MetricGoodput, along("split", split, stackAxis, ql)), "1:1"),
				ArgmaxIn(series(results.MetricGoodput, along("split", split, stackAxis, tr)), "1:1"),
				Decreasing(series(results.MetricGoodput, along("split", split, stackAxis, ql))),
			},
			Unjudged: "Convexity is not judged; emu runs 50–90 % on link1 only (the links are identical, the other half is its mirror).",
		},
		{
			ID: "fig8a", Figures: "Fig. 8a", Title: "fairness vs split",
			Paper: "Below 20 % or above 80 % on one link, the DC client competes almost only on the busier link; fairness is best, all clients roughly equal, when the split is balanced.",
			Shape: []Check{
				ArgmaxIn(series(results.MetricJFI, along("split-fairness", split)), "1:1"),
				Greater(term(link2, at("split-fairness", split, "9:1")), term(link1, at("split-fairness", split, "9:1"))),
				Above(term(results.MetricJFI, at("split-fairness", split, "1:1")), 0.95),
			},
			Unjudged: "\"All roughly equal\" is read as JFI above 0.95 at 1:1.",
		},
		{
			ID: "fig7b", Figures: "Fig. 7b", Title: "throughput vs bandwidth ratio, 50/50 split",
			Paper: "Throughput is highest at 1:1; a 50/50 split underuses the faster link as the ratio grows.",
			Shape: []Check{
				ArgmaxIn(series(results.MetricGoodput, along("bw-ratio", bw, stackAxis, ql)), "1:1"),
				ArgmaxIn(series(results.MetricGoodput, along("bw-ratio", bw, stackAxis, tr)), "1:1"),
				Decreasing(series(results.MetricGoodput, along("bw-ratio", bw, stackAxis, ql))),
			},
		},
		{
			ID: "fig7c", Figures: "Fig. 7c", Title: "throughput vs bandwidth ratio, split matching the ratio",
			Paper: "A split that matches the ratio gives much higher throughput, with very small impact of the ratio for QUIC with the modified buffer and for TCP; QUIC with the default buffer does worse (burstier from reordering, higher RTT).",
			Shape: []Check{
				Greater(term(results.MetricGoodput, at("bw-ratio-matched", bwm, "5:1", stackAxis, ql)), term(results.MetricGoodput, at("bw-ratio", bw, "5:1", stackAxis, ql))),
				Greater(term(results.MetricGoodput, at("bw-ratio-matched", bwm, "5:1", stackAxis, tr)), term(results.MetricGoodput, at("bw-ratio", bw, "5:1", stackAxis, tr))),
				Flat(series(results.MetricGoodput, along("bw-ratio-matched", bwm, stackAxis, ql)), Rel(CloseTol)),
				Flat(series(results.MetricGoodput, along("bw-ratio-matched", bwm, stackAxis, tr)), Rel(CloseTol)),
				Greater(term(results.MetricGoodput, at("bw-ratio-matched", bwm, "5:1", stackAxis, ql)), term(results.MetricGoodput, at("bw-ratio-matched", bwm, "5:1", stackAxis, qd))),
			},
			Unjudged: "\"Very small impact\" is read as goodput within 10 % across the ratios.",
		},
		{
			ID: "fig8bc", Figures: "Figs. 8b, 8c", Title: "fairness vs bandwidth ratio, 50/50 and matched split",
			Paper: "The matched split is fairer: at 5:1, JFI 0.70 matched against 0.59 at 50/50. In both, the single-link client on the fast link dominates and DC leans on the weak link; JFI is 1.00 only at 1:1.",
			Shape: []Check{
				Greater(term(results.MetricJFI, at("bw-ratio-matched-fairness", bwm, "5:1")), term(results.MetricJFI, at("bw-ratio-fairness", bw, "5:1"))),
				Greater(term(link1, at("bw-ratio-fairness", bw, "5:1")), term(dc, at("bw-ratio-fairness", bw, "5:1"))),
				Greater(term(link1, at("bw-ratio-fairness", bw, "5:1")), term(link2, at("bw-ratio-fairness", bw, "5:1"))),
				Greater(term(link1, at("bw-ratio-matched-fairness", bwm, "5:1")), term(dc, at("bw-ratio-matched-fairness", bwm, "5:1"))),
				Greater(term(link1, at("bw-ratio-matched-fairness", bwm, "5:1")), term(link2, at("bw-ratio-matched-fairness", bwm, "5:1"))),
				ArgmaxIn(series(results.MetricJFI, along("bw-ratio-fairness", bw)), "1:1"),
				ArgmaxIn(series(results.MetricJFI, along("bw-ratio-matched-fairness", bwm)), "1:1"),
			},
			Magnitude: []Check{
				Near(term(results.MetricJFI, at("bw-ratio-matched-fairness", bwm, "5:1")), 0.70, Abs(JFITol)),
				Near(term(results.MetricJFI, at("bw-ratio-fairness", bw, "5:1")), 0.59, Abs(JFITol)),
				Near(term(results.MetricJFI, at("bw-ratio-fairness", bw, "1:1")), 1.00, Abs(JFITolNearOne)),
			},
			Unjudged: "\"DC leans on the weak link\" needs the DC flow's traffic per link, which a sweep does not record.",
		},
		{
			ID: "fig9a10a", Figures: "Figs. 9a, 10a", Title: "low-delay scenario (delays sum to 20 ms), delay ratio 1:1 to 5:1",
			Paper: "Throughput is hardly affected; JFI goes from 0.9996 to 0.9986.",
			Shape: []Check{
				Flat(series(results.MetricGoodput, along("delay-ratio-low", dr, stackAxis, ql)), Rel(CloseTol)),
				Flat(series(results.MetricGoodput, along("delay-ratio-low", dr, stackAxis, tr)), Rel(CloseTol)),
				Above(term(results.MetricJFI, at("delay-ratio-low-fairness", dr, "5:1")), 0.99),
			},
			Magnitude: []Check{
				Near(term(results.MetricJFI, at("delay-ratio-low-fairness", dr, "1:1")), 0.9996, Abs(JFITolNearOne)),
				Near(term(results.MetricJFI, at("delay-ratio-low-fairness", dr, "5:1")), 0.9986, Abs(JFITolNearOne)),
			},
			Unjudged: "\"Hardly affected\" is read as goodput within 10 % across the ratios, and JFI above 0.99 at 5:1.",
		},
		{
			ID: "fig9b10b", Figures: "Figs. 9b, 10b", Title: "high-delay scenario (delays sum to 200 ms), delay ratio 1:1 to 5:1",
			Paper: "Throughput and fairness fall with the ratio, JFI from 0.9903 to 0.8758 (more reordering, PDCP buffering giving bursts and a higher RTT, cumulative ACKs after a batch emptying the pipe); 1:1 is best. The single-link client on the lower-delay link gets more than the other.",
			Shape: []Check{
				Decreasing(series(results.MetricGoodput, along("delay-ratio-high", dr, stackAxis, ql))),
				ArgmaxIn(series(results.MetricGoodput, along("delay-ratio-high", dr, stackAxis, ql)), "1:1"),
				Decreasing(series(results.MetricJFI, along("delay-ratio-high-fairness", dr))),
				Greater(term(link2, at("delay-ratio-high-fairness", dr, "5:1")), term(link1, at("delay-ratio-high-fairness", dr, "5:1"))),
			},
			Magnitude: []Check{
				Near(term(results.MetricJFI, at("delay-ratio-high-fairness", dr, "1:1")), 0.9903, Abs(JFITolNearOne)),
				Near(term(results.MetricJFI, at("delay-ratio-high-fairness", dr, "5:1")), 0.8758, Abs(JFITol)),
			},
			Unjudged: "The causes are not judged here (the runs' PDCP counters show reordering and holds). link1 carries the larger delay of a ratio a:b.",
		},
		{
			ID: "fig9c10c", Figures: "Figs. 9c, 10c", Title: "throughput and fairness vs loss rate",
			Paper: "More loss lowers throughput; small losses barely change fairness.",
			Shape: []Check{
				Decreasing(series(results.MetricGoodput, along("loss", loss, stackAxis, ql))),
				Decreasing(series(results.MetricGoodput, along("loss", loss, stackAxis, tr))),
				Within(term(results.MetricJFI, at("loss-fairness", loss, "0.08%")), term(results.MetricJFI, at("loss-fairness", loss, "0%")), Abs(JFITol)),
				Within(term(results.MetricJFI, at("loss-fairness", loss, "0.5%")), term(results.MetricJFI, at("loss-fairness", loss, "0%")), Abs(JFITol)),
			},
			Unjudged: "\"Small losses\" is read as up to 0.5 %, \"barely\" as a JFI within 0.05 of the lossless one.",
		},
		{
			ID: "fig11a", Figures: "Fig. 11a", Title: "throughput with duplication vs loss",
			Paper: "With duplication throughput is at most about 20 Mbit/s (both links carry the same data) but much steadier as loss rises.",
			Shape: []Check{
				Greater(term(results.MetricGoodput, at("loss", loss, "0%", stackAxis, ql)), term(results.MetricGoodput, at("duplication", loss, "0%", stackAxis, ql))),
				Steadier(series(results.MetricGoodput, along("duplication", loss, stackAxis, ql)), series(results.MetricGoodput, along("loss", loss, stackAxis, ql)), "0%", "5%"),
				Steadier(series(results.MetricGoodput, along("duplication", loss, stackAxis, tr)), series(results.MetricGoodput, along("loss", loss, stackAxis, tr)), "0%", "5%"),
			},
			Magnitude: []Check{
				AtMost(series(results.MetricGoodput, along("duplication", loss, stackAxis, ql)), 20, Rel(CloseTol)),
			},
			Unjudged: "Batch splitting at the same loss rates is the loss preset.",
		},
		{
			ID: "fig11b", Figures: "Fig. 11b", Title: "fairness with duplication, loss 0–5 %",
			Paper: "JFI 0.39–0.48: the DC client takes a much larger share (delivery probability 1−p² against 1−p); even at 0 % added loss, queue-overflow losses hurt the single-link clients more than DC. The combined interface throughput B and the goodput X are related by X = B(1+p)/2.",
			Shape: []Check{
				GreaterAlong(series(dc, along("duplication-fairness", loss)), series(link1, along("duplication-fairness", loss))),
				GreaterAlong(series(dc, along("duplication-fairness", loss)), series(link2, along("duplication-fairness", loss))),
				BelowAll(series(results.MetricJFI, along("duplication-fairness", loss)), 0.5),
				DupRelation(along("duplication", loss, stackAxis, ql), Rel(CloseTol)),
			},
			Magnitude: []Check{
				InRange(series(results.MetricJFI, along("duplication-fairness", loss)), 0.39, 0.48, Abs(JFITol)),
			},
			Unjudged: "The relation X = B(1+p)/2 is checked on the throughput preset (one DC flow), where B is the DC flow's alone; X is goodput, B counts IP bytes, so headers alone put X/prediction about 5 % below 1.",
		},
	}
}
