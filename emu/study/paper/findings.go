package paper

import (
	"github.com/dc-emu/emu/emu/findings"
	"github.com/dc-emu/emu/emu/results"
)

// The paper's findings, one per row of docs/paper-findings.md, each read
// on the study's presets, named by their family and parameter, and their
// axes and stacks by the constants the presets are built from.

// Shorthands of the tables below.
func at(preset string, kv ...string) findings.At { return findings.PointAt(preset, kv...) }
func along(preset, axis string, kv ...string) findings.Line {
	return findings.LineAlong(preset, axis, kv...)
}
func term(metric string, a findings.At) findings.Term       { return findings.TermAt(metric, a) }
func series(metric string, l findings.Line) findings.Series { return findings.SeriesAlong(metric, l) }

var (
	dc    = results.FlowGoodput("dc")
	link1 = results.FlowGoodput("link1")
	link2 = results.FlowGoodput("link2")
)

// Findings returns the paper's findings, one per row of
// docs/paper-findings.md, in the paper's order: the quic-go repeats of
// Figs. 4–11 (quic-go stands in for aioquic), the ngtcp2 repeats
// (Figs. 12–19), the trace repeats (Figs. 20–22), and the queue study.
func Findings() []findings.Finding {
	return append(append(coreFindings(), ngtcp2Findings()...), traceFindings()...)
}

func coreFindings() []findings.Finding {
	const (
		batch, split, bw, bwm = axBatch, axSplit, axBWRatio, axBWMatched
		dr, loss              = axDelayRatio, axLoss
		ql, qd, tr            = stackQuicLarge, stackQuicDefault, stackTCPReno
	)
	return []findings.Finding{
		{
			ID: "fig4a", Figures: "Fig. 4a", Title: "throughput vs batch size (QUIC default buffer, QUIC modified buffer, TCP)",
			Paper: "Larger batches lower throughput: one link idles while the other carries a batch. Too small batches cost through reordering. The best batch lies around 100–150, depending on the protocol. QUIC with the modified buffer is close to TCP over much of the range; QUIC needs the larger buffer to match TCP.",
			Shape: []findings.Check{
				findings.ArgmaxIn(series(results.MetricGoodput, along(famCore.throughput(pBatch), batch, StackAxis, ql)), "100", "150"),
				findings.Greater(term(results.MetricGoodput, at(famCore.throughput(pBatch), batch, "150", StackAxis, ql)), term(results.MetricGoodput, at(famCore.throughput(pBatch), batch, "500", StackAxis, ql))),
				findings.Greater(term(results.MetricGoodput, at(famCore.throughput(pBatch), batch, "150", StackAxis, tr)), term(results.MetricGoodput, at(famCore.throughput(pBatch), batch, "500", StackAxis, tr))),
				findings.Greater(term(results.MetricGoodput, at(famCore.throughput(pBatch), batch, "150", StackAxis, qd)), term(results.MetricGoodput, at(famCore.throughput(pBatch), batch, "500", StackAxis, qd))),
				findings.WithinAlong(series(results.MetricGoodput, along(famCore.throughput(pBatch), batch, StackAxis, ql)), series(results.MetricGoodput, along(famCore.throughput(pBatch), batch, StackAxis, tr)), findings.Rel(findings.CloseTol), 0.5),
				findings.Greater(term(results.MetricGoodput, at(famCore.throughput(pBatch), batch, "100", StackAxis, ql)), term(results.MetricGoodput, at(famCore.throughput(pBatch), batch, "100", StackAxis, qd))),
			},
			Unjudged: "The cost of small batches is judged through the argmax (25 and 50 below the best); \"much of the range\" is read as at least half the batch sizes.",
		},
		{
			ID: "fig4bc", Figures: "Figs. 4b, 4c", Title: "link utilisation over time at batch 50 and 500",
			Paper: "At batch 500 there are long stretches in which one link is underused.",
			Shape: []findings.Check{
				findings.Greater(term(results.MetricUnderused, at(famCore.throughput(pBatch), batch, "500", StackAxis, ql)), term(results.MetricUnderused, at(famCore.throughput(pBatch), batch, "50", StackAxis, ql))),
			},
			Unjudged: "\"Long stretches\" has no number: the share of 100 ms bins with a link below half its capacity must be larger at 500 than at 50.",
		},
		{
			ID: "fig5a", Figures: "Fig. 5a", Title: "fairness vs batch size",
			Paper: "Fairness falls with large batches. The DC client's throughput drops markedly from batch 150 up, as the single-link clients take the link during DC's off periods.",
			Shape: []findings.Check{
				findings.Greater(term(results.MetricJFI, at(famCore.fairness(pBatch), batch, "100")), term(results.MetricJFI, at(famCore.fairness(pBatch), batch, "500"))),
				findings.Decreasing(series(dc, along(famCore.fairness(pBatch), batch).Only("100", "150", "300", "500"))),
				findings.Greater(term(link1, at(famCore.fairness(pBatch), batch, "500")), term(dc, at(famCore.fairness(pBatch), batch, "500"))),
				findings.Greater(term(link2, at(famCore.fairness(pBatch), batch, "500")), term(dc, at(famCore.fairness(pBatch), batch, "500"))),
			},
		},
		{
			ID: "fig5b", Figures: "Fig. 5b", Title: "3-minute throughput of the three clients at the defaults",
			Paper: "Short-term unfairness persists at time scales up to about 30 s; 3-minute runs averaged over 10 repeats filter it out.",
			Shape: []findings.Check{
				findings.Greater(term(results.MetricJFI, at(famCore.fairness(pBatch), batch, "100")), term(results.MetricJFI1s, at(famCore.fairness(pBatch), batch, "100"))),
				findings.Greater(term(results.MetricJFI10s, at(famCore.fairness(pBatch), batch, "100")), term(results.MetricJFI1s, at(famCore.fairness(pBatch), batch, "100"))),
			},
			Unjudged: "The 30 s time scale is not judged: the quick scale's 60 s runs have two 30 s windows.",
		},
		{
			ID: "appA", Figures: "App. A", Title: "pairs of single-link clients: QUIC–QUIC, QUIC–TCP, TCP–TCP",
			Paper: "Reference traces of competing single-path flows.",
			Extra: []string{presetSCPairs}, Unjudged: "The paper states no finding to judge; emu's figures and table are shown for reference.",
		},
		{
			ID: "fig6", Figures: "Fig. 6", Title: "link utilisation at split 9:1",
			Paper: "The lightly loaded link almost never reaches its capacity, even in bursts.",
			Shape: []findings.Check{
				findings.Below(term(results.LinkUtilizationP99("link2"), at(famCore.throughput(pSplit), split, "9:1", StackAxis, ql)), 0.9),
				findings.Greater(term(results.LinkUtilizationP99("link1"), at(famCore.throughput(pSplit), split, "9:1", StackAxis, ql)), term(results.LinkUtilizationP99("link2"), at(famCore.throughput(pSplit), split, "9:1", StackAxis, ql))),
			},
			Unjudged: "\"Almost never, even in bursts\" is read as: the 99th percentile of link2's 100 ms utilisation stays below 90 %.",
		},
		{
			ID: "fig7a", Figures: "Fig. 7a", Title: "throughput vs split (percent on eno1)",
			Paper: "Throughput peaks at 50/50 and falls convexly as the split becomes uneven.",
			Shape: []findings.Check{
				findings.ArgmaxIn(series(results.MetricGoodput, along(famCore.throughput(pSplit), split, StackAxis, ql)), "1:1"),
				findings.ArgmaxIn(series(results.MetricGoodput, along(famCore.throughput(pSplit), split, StackAxis, tr)), "1:1"),
				findings.Decreasing(series(results.MetricGoodput, along(famCore.throughput(pSplit), split, StackAxis, ql))),
			},
			Unjudged: "Convexity is not judged; emu runs 50–90 % on link1 only (the links are identical, the other half is its mirror).",
		},
		{
			ID: "fig8a", Figures: "Fig. 8a", Title: "fairness vs split",
			Paper: "Below 20 % or above 80 % on one link, the DC client competes almost only on the busier link; fairness is best, all clients roughly equal, when the split is balanced.",
			Shape: []findings.Check{
				findings.ArgmaxIn(series(results.MetricJFI, along(famCore.fairness(pSplit), split)), "1:1"),
				findings.Greater(term(link2, at(famCore.fairness(pSplit), split, "9:1")), term(link1, at(famCore.fairness(pSplit), split, "9:1"))),
				findings.Above(term(results.MetricJFI, at(famCore.fairness(pSplit), split, "1:1")), 0.95),
			},
			Unjudged: "\"All roughly equal\" is read as JFI above 0.95 at 1:1.",
		},
		{
			ID: "fig7b", Figures: "Fig. 7b", Title: "throughput vs bandwidth ratio, 50/50 split",
			Paper: "Throughput is highest at 1:1; a 50/50 split underuses the faster link as the ratio grows.",
			Shape: []findings.Check{
				findings.ArgmaxIn(series(results.MetricGoodput, along(famCore.throughput(pBWRatio), bw, StackAxis, ql)), "1:1"),
				findings.ArgmaxIn(series(results.MetricGoodput, along(famCore.throughput(pBWRatio), bw, StackAxis, tr)), "1:1"),
				findings.Decreasing(series(results.MetricGoodput, along(famCore.throughput(pBWRatio), bw, StackAxis, ql))),
			},
		},
		{
			ID: "fig7c", Figures: "Fig. 7c", Title: "throughput vs bandwidth ratio, split matching the ratio",
			Paper: "A split that matches the ratio gives much higher throughput, with very small impact of the ratio for QUIC with the modified buffer and for TCP; QUIC with the default buffer does worse (burstier from reordering, higher RTT).",
			Shape: []findings.Check{
				findings.Greater(term(results.MetricGoodput, at(famCore.throughput(pBWRatioMatched), bwm, "5:1", StackAxis, ql)), term(results.MetricGoodput, at(famCore.throughput(pBWRatio), bw, "5:1", StackAxis, ql))),
				findings.Greater(term(results.MetricGoodput, at(famCore.throughput(pBWRatioMatched), bwm, "5:1", StackAxis, tr)), term(results.MetricGoodput, at(famCore.throughput(pBWRatio), bw, "5:1", StackAxis, tr))),
				findings.Flat(series(results.MetricGoodput, along(famCore.throughput(pBWRatioMatched), bwm, StackAxis, ql)), findings.Rel(findings.CloseTol)),
				findings.Flat(series(results.MetricGoodput, along(famCore.throughput(pBWRatioMatched), bwm, StackAxis, tr)), findings.Rel(findings.CloseTol)),
				findings.Greater(term(results.MetricGoodput, at(famCore.throughput(pBWRatioMatched), bwm, "5:1", StackAxis, ql)), term(results.MetricGoodput, at(famCore.throughput(pBWRatioMatched), bwm, "5:1", StackAxis, qd))),
			},
			Unjudged: "\"Very small impact\" is read as goodput within 10 % across the ratios.",
		},
		{
			ID: "fig8bc", Figures: "Figs. 8b, 8c", Title: "fairness vs bandwidth ratio, 50/50 and matched split",
			Paper: "The matched split is fairer: at 5:1, JFI 0.70 matched against 0.59 at 50/50. In both, the single-link client on the fast link dominates and DC leans on the weak link; JFI is 1.00 only at 1:1.",
			Shape: []findings.Check{
				findings.Greater(term(results.MetricJFI, at(famCore.fairness(pBWRatioMatched), bwm, "5:1")), term(results.MetricJFI, at(famCore.fairness(pBWRatio), bw, "5:1"))),
				findings.Greater(term(link1, at(famCore.fairness(pBWRatio), bw, "5:1")), term(dc, at(famCore.fairness(pBWRatio), bw, "5:1"))),
				findings.Greater(term(link1, at(famCore.fairness(pBWRatio), bw, "5:1")), term(link2, at(famCore.fairness(pBWRatio), bw, "5:1"))),
				findings.Greater(term(link1, at(famCore.fairness(pBWRatioMatched), bwm, "5:1")), term(dc, at(famCore.fairness(pBWRatioMatched), bwm, "5:1"))),
				findings.Greater(term(link1, at(famCore.fairness(pBWRatioMatched), bwm, "5:1")), term(link2, at(famCore.fairness(pBWRatioMatched), bwm, "5:1"))),
				findings.ArgmaxIn(series(results.MetricJFI, along(famCore.fairness(pBWRatio), bw)), "1:1"),
				findings.ArgmaxIn(series(results.MetricJFI, along(famCore.fairness(pBWRatioMatched), bwm)), "1:1"),
			},
			Magnitude: []findings.Check{
				findings.Near(term(results.MetricJFI, at(famCore.fairness(pBWRatioMatched), bwm, "5:1")), 0.70, findings.Abs(findings.JFITol)),
				findings.Near(term(results.MetricJFI, at(famCore.fairness(pBWRatio), bw, "5:1")), 0.59, findings.Abs(findings.JFITol)),
				findings.Near(term(results.MetricJFI, at(famCore.fairness(pBWRatio), bw, "1:1")), 1.00, findings.Abs(findings.JFITolNearOne)),
			},
			Unjudged: "\"DC leans on the weak link\" needs the DC flow's traffic per link, which a sweep does not record.",
		},
		{
			ID: "fig9a10a", Figures: "Figs. 9a, 10a", Title: "low-delay scenario (delays sum to 20 ms), delay ratio 1:1 to 5:1",
			Paper: "Throughput is hardly affected; JFI goes from 0.9996 to 0.9986.",
			Shape: []findings.Check{
				findings.Flat(series(results.MetricGoodput, along(famCore.throughput(pDelayRatioLow), dr, StackAxis, ql)), findings.Rel(findings.CloseTol)),
				findings.Flat(series(results.MetricGoodput, along(famCore.throughput(pDelayRatioLow), dr, StackAxis, tr)), findings.Rel(findings.CloseTol)),
				findings.Above(term(results.MetricJFI, at(famCore.fairness(pDelayRatioLow), dr, "5:1")), 0.99),
			},
			Magnitude: []findings.Check{
				findings.Near(term(results.MetricJFI, at(famCore.fairness(pDelayRatioLow), dr, "1:1")), 0.9996, findings.Abs(findings.JFITolNearOne)),
				findings.Near(term(results.MetricJFI, at(famCore.fairness(pDelayRatioLow), dr, "5:1")), 0.9986, findings.Abs(findings.JFITolNearOne)),
			},
			Unjudged: "\"Hardly affected\" is read as goodput within 10 % across the ratios, and JFI above 0.99 at 5:1.",
		},
		{
			ID: "fig9b10b", Figures: "Figs. 9b, 10b", Title: "high-delay scenario (delays sum to 200 ms), delay ratio 1:1 to 5:1",
			Paper: "Throughput and fairness fall with the ratio, JFI from 0.9903 to 0.8758 (more reordering, PDCP buffering giving bursts and a higher RTT, cumulative ACKs after a batch emptying the pipe); 1:1 is best. The single-link client on the lower-delay link gets more than the other.",
			Shape: []findings.Check{
				findings.Decreasing(series(results.MetricGoodput, along(famCore.throughput(pDelayRatioHigh), dr, StackAxis, ql))),
				findings.ArgmaxIn(series(results.MetricGoodput, along(famCore.throughput(pDelayRatioHigh), dr, StackAxis, ql)), "1:1"),
				findings.Decreasing(series(results.MetricJFI, along(famCore.fairness(pDelayRatioHigh), dr))),
				findings.Greater(term(link2, at(famCore.fairness(pDelayRatioHigh), dr, "5:1")), term(link1, at(famCore.fairness(pDelayRatioHigh), dr, "5:1"))),
			},
			Magnitude: []findings.Check{
				findings.Near(term(results.MetricJFI, at(famCore.fairness(pDelayRatioHigh), dr, "1:1")), 0.9903, findings.Abs(findings.JFITolNearOne)),
				findings.Near(term(results.MetricJFI, at(famCore.fairness(pDelayRatioHigh), dr, "5:1")), 0.8758, findings.Abs(findings.JFITol)),
			},
			Unjudged: "The causes are not judged here (the runs' PDCP counters show reordering and holds). link1 carries the larger delay of a ratio a:b.",
		},
		{
			ID: "fig9c10c", Figures: "Figs. 9c, 10c", Title: "throughput and fairness vs loss rate",
			Paper: "More loss lowers throughput; small losses barely change fairness.",
			Shape: []findings.Check{
				findings.Decreasing(series(results.MetricGoodput, along(famCore.throughput(pLoss), loss, StackAxis, ql))),
				findings.Decreasing(series(results.MetricGoodput, along(famCore.throughput(pLoss), loss, StackAxis, tr))),
				findings.Within(term(results.MetricJFI, at(famCore.fairness(pLoss), loss, "0.08%")), term(results.MetricJFI, at(famCore.fairness(pLoss), loss, "0%")), findings.Abs(findings.JFITol)),
				findings.Within(term(results.MetricJFI, at(famCore.fairness(pLoss), loss, "0.5%")), term(results.MetricJFI, at(famCore.fairness(pLoss), loss, "0%")), findings.Abs(findings.JFITol)),
			},
			Unjudged: "\"Small losses\" is read as up to 0.5 %, \"barely\" as a JFI within 0.05 of the lossless one.",
		},
		{
			ID: "fig11a", Figures: "Fig. 11a", Title: "throughput with duplication vs loss",
			Paper: "With duplication throughput is at most about 20 Mbit/s (both links carry the same data) but much steadier as loss rises.",
			Shape: []findings.Check{
				findings.Greater(term(results.MetricGoodput, at(famCore.throughput(pLoss), loss, "0%", StackAxis, ql)), term(results.MetricGoodput, at(famCore.throughput(pDuplication), loss, "0%", StackAxis, ql))),
				findings.Steadier(series(results.MetricGoodput, along(famCore.throughput(pDuplication), loss, StackAxis, ql)), series(results.MetricGoodput, along(famCore.throughput(pLoss), loss, StackAxis, ql)), "0%", "5%"),
				findings.Steadier(series(results.MetricGoodput, along(famCore.throughput(pDuplication), loss, StackAxis, tr)), series(results.MetricGoodput, along(famCore.throughput(pLoss), loss, StackAxis, tr)), "0%", "5%"),
			},
			Magnitude: []findings.Check{
				findings.AtMost(series(results.MetricGoodput, along(famCore.throughput(pDuplication), loss, StackAxis, ql)), 20, findings.Rel(findings.CloseTol)),
			},
			Unjudged: "Batch splitting at the same loss rates is the loss preset.",
		},
		{
			ID: "fig11b", Figures: "Fig. 11b", Title: "fairness with duplication, loss 0–5 %",
			Paper: "JFI 0.39–0.48: the DC client takes a much larger share (delivery probability 1−p² against 1−p); even at 0 % added loss, queue-overflow losses hurt the single-link clients more than DC. The combined interface throughput B and the goodput X are related by X = B(1+p)/2.",
			Shape: []findings.Check{
				findings.GreaterAlong(series(dc, along(famCore.fairness(pDuplication), loss)), series(link1, along(famCore.fairness(pDuplication), loss))),
				findings.GreaterAlong(series(dc, along(famCore.fairness(pDuplication), loss)), series(link2, along(famCore.fairness(pDuplication), loss))),
				findings.BelowAll(series(results.MetricJFI, along(famCore.fairness(pDuplication), loss)), 0.5),
				findings.DupRelation(along(famCore.throughput(pDuplication), loss, StackAxis, ql), findings.Rel(findings.CloseTol)),
			},
			Magnitude: []findings.Check{
				findings.InRange(series(results.MetricJFI, along(famCore.fairness(pDuplication), loss)), 0.39, 0.48, findings.Abs(findings.JFITol)),
			},
			Unjudged: "The relation X = B(1+p)/2 is checked on the throughput preset (one DC flow), where B is the DC flow's alone; X is goodput, B counts IP bytes, so headers alone put X/prediction about 5 % below 1.",
		},
	}
}

// ngtcp2Findings are the ngtcp2 repeats (Figs. 12–19): NewReno and CUBIC,
// compared with quic-go (standing in for aioquic) and TCP.
func ngtcp2Findings() []findings.Finding {
	const (
		batch, split, bw, bwm = axBatch, axSplit, axBWRatio, axBWMatched
		dr, loss              = axDelayRatio, axLoss
		nr, nc, tc            = stackNgtcp2Reno, stackNgtcp2Cubic, stackTCPCubic
		ql, tr                = stackQuicLarge, stackTCPReno
	)
	perCC := func(f func(cc string) []findings.Check) []findings.Check { return append(f(nr), f(nc)...) }
	return []findings.Finding{
		{
			ID: "fig12a", Figures: "Fig. 12a", Title: "ngtcp2 NewReno and CUBIC: throughput vs batch size",
			Paper: "Little difference between the two congestion controllers; the drop comes at other batch sizes than aioquic's; ngtcp2 is slightly above aioquic at small batches, and above TCP.",
			Shape: []findings.Check{
				findings.WithinAlong(series(results.MetricGoodput, along(famNgtcp2.throughput(pBatch), batch, StackAxis, nr)), series(results.MetricGoodput, along(famNgtcp2.throughput(pBatch), batch, StackAxis, nc)), findings.Rel(findings.CloseTol), 1),
				findings.Greater(term(results.MetricGoodput, at(famNgtcp2.throughput(pBatch), batch, "25", StackAxis, nr)), term(results.MetricGoodput, at(famCore.throughput(pBatch), batch, "25", StackAxis, ql))),
				findings.Greater(term(results.MetricGoodput, at(famNgtcp2.throughput(pBatch), batch, "25", StackAxis, nr)), term(results.MetricGoodput, at(famCore.throughput(pBatch), batch, "25", StackAxis, tr))),
				findings.Greater(term(results.MetricGoodput, at(famNgtcp2.throughput(pBatch), batch, "25", StackAxis, nc)), term(results.MetricGoodput, at(famNgtcp2.throughput(pBatch), batch, "25", StackAxis, tc))),
			},
			Unjudged: "quic-go (the batch preset's quic-large line) stands in for aioquic; where the drop comes relative to aioquic's is not judged. \"Little difference\" is read as within 10 % at every batch size.",
		},
		{
			ID: "fig12bc", Figures: "Figs. 12b, 12c", Title: "ngtcp2 fairness vs batch size, NewReno and CUBIC",
			Paper: "The two controllers' JFIs lie within 0.02 (the largest gap at batch 500); ngtcp2 is more aggressive than aioquic: its DC client is slightly above the single-link clients at small batches, and drops drastically as batches grow.",
			Shape: perCC(func(cc string) []findings.Check {
				p := func(b string) findings.At { return at(famNgtcp2.fairness(pBatch), batch, b, StackAxis, cc) }
				return []findings.Check{
					findings.Greater(term(results.MetricJFI, p("100")), term(results.MetricJFI, p("500"))),
					findings.Greater(term(dc, p("25")), term(link1, p("25"))),
					findings.Greater(term(dc, p("100")), term(dc, p("500"))),
				}
			}),
			Magnitude: []findings.Check{
				findings.WithinAlong(series(results.MetricJFI, along(famNgtcp2.fairness(pBatch), batch, StackAxis, nr)), series(results.MetricJFI, along(famNgtcp2.fairness(pBatch), batch, StackAxis, nc)), findings.Abs(0.02), 1),
			},
			Unjudged: "\"CUBIC slightly more resilient at first\" is not judged; nor is the comparison with aioquic's DC client.",
		},
		{
			ID: "fig13a", Figures: "Figs. 13a; 14a, 15a", Title: "ngtcp2: split",
			Paper: "The controllers barely differ; ngtcp2 is above aioquic and TCP at balanced splits; its DC client grows more aggressively, so it is slightly unfair where aioquic was fair.",
			Shape: append([]findings.Check{
				findings.WithinAlong(series(results.MetricGoodput, along(famNgtcp2.throughput(pSplit), split, StackAxis, nr)), series(results.MetricGoodput, along(famNgtcp2.throughput(pSplit), split, StackAxis, nc)), findings.Rel(findings.CloseTol), 1),
				findings.Greater(term(results.MetricGoodput, at(famNgtcp2.throughput(pSplit), split, "1:1", StackAxis, nc)), term(results.MetricGoodput, at(famNgtcp2.throughput(pSplit), split, "1:1", StackAxis, tc))),
				findings.Greater(term(results.MetricGoodput, at(famNgtcp2.throughput(pSplit), split, "1:1", StackAxis, nr)), term(results.MetricGoodput, at(famCore.throughput(pSplit), split, "1:1", StackAxis, ql))),
			}, perCC(func(cc string) []findings.Check {
				p := at(famNgtcp2.fairness(pSplit), split, "1:1", StackAxis, cc)
				return []findings.Check{
					findings.Greater(term(dc, p), term(link1, p)),
					findings.Greater(term(results.MetricJFI, at(famCore.fairness(pSplit), split, "1:1")), term(results.MetricJFI, p)),
				}
			})...),
			Unjudged: "quic-go stands in for aioquic. \"Barely differ\" is read as within 10 % at every split.",
		},
		{
			ID: "fig13b", Figures: "Figs. 13b; 14b, 15b", Title: "ngtcp2: high-delay ratio",
			Paper: "Throughput clearly below aioquic's throughout (pacer differences); fairness: DC fairer at balanced ratios with a slower drop; beyond 2:1 DC's throughput equals aioquic's; the single-link client on the high-delay link does much worse at skewed ratios.",
			Shape: append([]findings.Check{
				findings.GreaterAlong(series(results.MetricGoodput, along(famCore.throughput(pDelayRatioHigh), dr, StackAxis, ql)), series(results.MetricGoodput, along(famNgtcp2.throughput(pDelayRatioHigh), dr, StackAxis, nr))),
				findings.GreaterAlong(series(results.MetricGoodput, along(famCore.throughput(pDelayRatioHigh), dr, StackAxis, ql)), series(results.MetricGoodput, along(famNgtcp2.throughput(pDelayRatioHigh), dr, StackAxis, nc))),
			}, perCC(func(cc string) []findings.Check {
				p := at(famNgtcp2.fairness(pDelayRatioHigh), dr, "5:1", StackAxis, cc)
				return []findings.Check{findings.Greater(term(link2, p), term(link1, p))}
			})...),
			Unjudged: "quic-go stands in for aioquic, whose pacer differs from both; the fairness comparison with aioquic is not judged. link1 carries the larger delay.",
		},
		{
			ID: "fig13c", Figures: "Figs. 13c; 14c, 15c", Title: "ngtcp2: loss",
			Paper: "Small differences from the baseline; ngtcp2 CUBIC clearly above TCP CUBIC; at 0.08 % loss TCP CUBIC mostly stays in its Reno-friendly mode, so TCP CUBIC, TCP NewReno and ngtcp2 NewReno perform alike.",
			Shape: append([]findings.Check{
				findings.GreaterAlong(series(results.MetricGoodput, along(famNgtcp2.throughput(pLoss), loss, StackAxis, nc).Only("0.5%", "1%", "2%")), series(results.MetricGoodput, along(famNgtcp2.throughput(pLoss), loss, StackAxis, tc))),
				findings.Within(term(results.MetricGoodput, at(famNgtcp2.throughput(pLoss), loss, "0.08%", StackAxis, tc)), term(results.MetricGoodput, at(famCore.throughput(pLoss), loss, "0.08%", StackAxis, tr)), findings.Rel(findings.CloseTol)),
				findings.Within(term(results.MetricGoodput, at(famNgtcp2.throughput(pLoss), loss, "0.08%", StackAxis, nr)), term(results.MetricGoodput, at(famCore.throughput(pLoss), loss, "0.08%", StackAxis, tr)), findings.Rel(findings.CloseTol)),
			}, perCC(func(cc string) []findings.Check {
				return []findings.Check{findings.Within(term(results.MetricJFI, at(famNgtcp2.fairness(pLoss), loss, "0.5%", StackAxis, cc)), term(results.MetricJFI, at(famNgtcp2.fairness(pLoss), loss, "0%", StackAxis, cc)), findings.Abs(findings.JFITol))}
			})...),
			Unjudged: "\"Clearly above\" is judged at the lossy points 0.5–2 %; \"alike\" is read as within 10 %; fairness as in Fig. 10c.",
		},
		{
			ID: "fig16-19", Figures: "Figs. 16–19", Title: "ngtcp2 NewReno and CUBIC: bandwidth ratio with fixed (16) and matched (17) split, low-delay ratio (18), duplication (19)",
			Paper: "The same conclusions as for aioquic; ngtcp2 is more aggressive with higher throughput; duplication's protection holds across implementations and controllers.",
			Shape: append([]findings.Check{
				findings.ArgmaxIn(series(results.MetricGoodput, along(famNgtcp2.throughput(pBWRatio), bw, StackAxis, nc)), "1:1"),
				findings.Greater(term(results.MetricGoodput, at(famNgtcp2.throughput(pBWRatioMatched), bwm, "5:1", StackAxis, nc)), term(results.MetricGoodput, at(famNgtcp2.throughput(pBWRatio), bw, "5:1", StackAxis, nc))),
				findings.Flat(series(results.MetricGoodput, along(famNgtcp2.throughput(pDelayRatioLow), dr, StackAxis, nc)), findings.Rel(findings.CloseTol)),
				findings.Greater(term(results.MetricGoodput, at(famNgtcp2.throughput(pBWRatio), bw, "1:1", StackAxis, nc)), term(results.MetricGoodput, at(famCore.throughput(pBWRatio), bw, "1:1", StackAxis, ql))),
				findings.Steadier(series(results.MetricGoodput, along(famNgtcp2.throughput(pDuplication), loss, StackAxis, nc)), series(results.MetricGoodput, along(famNgtcp2.throughput(pLoss), loss, StackAxis, nc)), "0%", "5%"),
			}, perCC(func(cc string) []findings.Check {
				return []findings.Check{
					findings.Greater(term(results.MetricJFI, at(famNgtcp2.fairness(pBWRatioMatched), bwm, "5:1", StackAxis, cc)), term(results.MetricJFI, at(famNgtcp2.fairness(pBWRatio), bw, "5:1", StackAxis, cc))),
					findings.GreaterAlong(series(dc, along(famNgtcp2.fairness(pDuplication), loss, StackAxis, cc)), series(link1, along(famNgtcp2.fairness(pDuplication), loss, StackAxis, cc))),
				}
			})...),
			Unjudged: "\"The same conclusions\" is judged by the central claim of each of Figs. 7b, 7c, 8b/8c, 9a, 11a/11b; quic-go stands in for aioquic.",
		},
	}
}

// traceFindings are the StaticA repeats (Figs. 20–22) and the queue study.
func traceFindings() []findings.Finding {
	const (
		batch, split, dr, loss = "dc.batch", "dc.split", axDelayRatio, axLoss
		ql, nc                 = stackQuicLarge, stackNgtcp2Cubic
	)
	return []findings.Finding{
		{
			ID: "fig20a-c", Figures: "Figs. 20a–c", Title: "StaticA trace, aioquic: batch size, high-delay ratio, loss",
			Paper: "The same trends as with constant links; the pacer's effect on the delay ratio shows more clearly.",
			Shape: []findings.Check{
				findings.Greater(term(results.MetricGoodput, at(famLTE.throughput(pBatch), batch, "150", StackAxis, ql)), term(results.MetricGoodput, at(famLTE.throughput(pBatch), batch, "500", StackAxis, ql))),
				findings.Greater(term(results.MetricJFI, at(famLTE.fairness(pBatch), batch, "100")), term(results.MetricJFI, at(famLTE.fairness(pBatch), batch, "500"))),
				findings.Decreasing(series(results.MetricGoodput, along(famLTE.throughput(pDelayRatioHigh), dr, StackAxis, ql))),
				findings.Decreasing(series(results.MetricJFI, along(famLTE.fairness(pDelayRatioHigh), dr))),
				findings.Decreasing(series(results.MetricGoodput, along(famLTE.throughput(pLoss), loss, StackAxis, ql))),
			},
			Unjudged: "quic-go stands in for aioquic; the pacer's effect is not judged.",
		},
		{
			ID: "fig20d-f", Figures: "Figs. 20d–f", Title: "StaticA trace, ngtcp2 CUBIC: batch size, high-delay ratio, loss",
			Paper: "The same trends; ngtcp2 is more aggressive; CUBIC gives higher throughput.",
			Shape: []findings.Check{
				findings.Greater(term(results.MetricGoodput, at(famLTENgtcp2.throughput(pBatch), batch, "150", StackAxis, nc)), term(results.MetricGoodput, at(famLTENgtcp2.throughput(pBatch), batch, "500", StackAxis, nc))),
				findings.Greater(term(results.MetricJFI, at(famLTENgtcp2.fairness(pBatch), batch, "100")), term(results.MetricJFI, at(famLTENgtcp2.fairness(pBatch), batch, "500"))),
				findings.Decreasing(series(results.MetricGoodput, along(famLTENgtcp2.throughput(pDelayRatioHigh), dr, StackAxis, nc))),
				findings.Decreasing(series(results.MetricGoodput, along(famLTENgtcp2.throughput(pLoss), loss, StackAxis, nc))),
				findings.Greater(term(results.MetricGoodput, at(famLTENgtcp2.throughput(pBatch), batch, "100", StackAxis, nc)), term(results.MetricGoodput, at(famLTE.throughput(pBatch), batch, "100", StackAxis, ql))),
				findings.Greater(term(dc, at(famLTENgtcp2.fairness(pBatch), batch, "100")), term(dc, at(famLTE.fairness(pBatch), batch, "100"))),
			},
			Unjudged: "quic-go stands in for aioquic in the comparisons.",
		},
		{
			ID: "fig21-22", Figures: "Figs. 21, 22", Title: "StaticA trace, aioquic and ngtcp2: split, low-delay ratio, duplication under loss",
			Paper: "The same trends, with smaller differences between implementations and controllers.",
			Shape: []findings.Check{
				findings.ArgmaxIn(series(results.MetricGoodput, along(famLTE.throughput(pSplit), split, StackAxis, ql)), "1:1"),
				findings.ArgmaxIn(series(results.MetricGoodput, along(famLTENgtcp2.throughput(pSplit), split, StackAxis, nc)), "1:1"),
				findings.Flat(series(results.MetricGoodput, along(famLTE.throughput(pDelayRatioLow), dr, StackAxis, ql)), findings.Rel(findings.CloseTol)),
				findings.Flat(series(results.MetricGoodput, along(famLTENgtcp2.throughput(pDelayRatioLow), dr, StackAxis, nc)), findings.Rel(findings.CloseTol)),
				findings.Steadier(series(results.MetricGoodput, along(famLTE.throughput(pDuplication), loss, StackAxis, ql)), series(results.MetricGoodput, along(famLTE.throughput(pLoss), loss, StackAxis, ql)), "0%", "5%"),
				findings.GreaterAlong(series(dc, along(famLTE.fairness(pDuplication), loss)), series(link1, along(famLTE.fairness(pDuplication), loss))),
				findings.GreaterAlong(series(dc, along(famLTENgtcp2.fairness(pDuplication), loss)), series(link1, along(famLTENgtcp2.fairness(pDuplication), loss))),
			},
			Unjudged: "\"Smaller differences between implementations\" is not judged.",
		},
		{
			ID: "queue", Figures: "emu study", Title: "queue-length sensitivity of Figs. 8b, 8c and 11b",
			Paper: "The paper does not state its rate limiter's queue. This study shows JFI at 5:1 (50/50 and matched split) and under duplication (0 % and 2 % loss) for queues from 50 ms to 1000 packets.",
			Extra: []string{presetQueueFairness}, Unjudged: "A study of emu's own choice, not a finding of the paper.",
		},
		{
			ID: "ngtcp2-queue", Figures: "emu study", Title: "queue-length sensitivity of Figs. 14b and 15b",
			Paper: "The paper does not state its rate limiter's queue. This study shows ngtcp2's JFI and the DC client's share at high delay (1:1), NewReno and CUBIC, for queues from 50 ms to 1000 packets: with CUBIC and 100 ms queues the DC client starves.",
			Extra: []string{presetNgtcp2QueueFairness}, Unjudged: "A study of emu's own choice, not a finding of the paper.",
		},
		{
			ID: "jitter", Figures: "emu study", Title: "jitter-model sensitivity of Figs. 9b, 10b and 13b",
			Paper: "The paper does not say whether its tc jitter reordered packets (netem's does, unless it also limits the rate). This study shows the high-delay throughput (quic-go, ngtcp2, TCP) and fairness at delay ratios 1:1 and 5:1 with emu's order-keeping jitter, netem-like independent delays and no jitter.",
			Extra: []string{presetJitter, presetJitterFairness}, Unjudged: "A study of emu's own choice, not a finding of the paper.",
		},
	}
}
