package findings

import "github.com/dc-emu/emu/emu/results"

// ngtcp2Findings are the ngtcp2 repeats (Figs. 12–19): NewReno and CUBIC,
// compared with quic-go (standing in for aioquic) and TCP.
func ngtcp2Findings() []Finding {
	const (
		batch, split, bw, bwm = "dc.batch", "dc.split", "link.bw_ratio", "link.bw_ratio+dc.split"
		dr, loss              = "link.delay_ratio", "link.loss"
		nr, nc, tc            = StackNgtcp2Reno, StackNgtcp2Cubic, StackTCPCubic
		ql, tr                = StackQuicLarge, StackTCPReno
	)
	perCC := func(f func(cc string) []Check) []Check { return append(f(nr), f(nc)...) }
	return []Finding{
		{
			ID: "fig12a", Figures: "Fig. 12a", Title: "ngtcp2 NewReno and CUBIC: throughput vs batch size",
			Paper: "Little difference between the two congestion controllers; the drop comes at other batch sizes than aioquic's; ngtcp2 is slightly above aioquic at small batches, and above TCP.",
			Shape: []Check{
				WithinAlong(series(results.MetricGoodput, along("ngtcp2-batch", batch, stackAxis, nr)), series(results.MetricGoodput, along("ngtcp2-batch", batch, stackAxis, nc)), Rel(CloseTol), 1),
				Greater(term(results.MetricGoodput, at("ngtcp2-batch", batch, "25", stackAxis, nr)), term(results.MetricGoodput, at("batch", batch, "25", stackAxis, ql))),
				Greater(term(results.MetricGoodput, at("ngtcp2-batch", batch, "25", stackAxis, nr)), term(results.MetricGoodput, at("batch", batch, "25", stackAxis, tr))),
				Greater(term(results.MetricGoodput, at("ngtcp2-batch", batch, "25", stackAxis, nc)), term(results.MetricGoodput, at("ngtcp2-batch", batch, "25", stackAxis, tc))),
			},
			Unjudged: "quic-go (the batch preset's quic-large line) stands in for aioquic; where the drop comes relative to aioquic's is not judged. \"Little difference\" is read as within 10 % at every batch size.",
		},
		{
			ID: "fig12bc", Figures: "Figs. 12b, 12c", Title: "ngtcp2 fairness vs batch size, NewReno and CUBIC",
			Paper: "The two controllers' JFIs lie within 0.02 (the largest gap at batch 500); ngtcp2 is more aggressive than aioquic: its DC client is slightly above the single-link clients at small batches, and drops drastically as batches grow.",
			Shape: perCC(func(cc string) []Check {
				p := func(b string) At { return at("ngtcp2-batch-fairness", batch, b, stackAxis, cc) }
				return []Check{
					Greater(term(results.MetricJFI, p("100")), term(results.MetricJFI, p("500"))),
					Greater(term(dc, p("25")), term(link1, p("25"))),
					Greater(term(dc, p("100")), term(dc, p("500"))),
				}
			}),
			Magnitude: []Check{
				WithinAlong(series(results.MetricJFI, along("ngtcp2-batch-fairness", batch, stackAxis, nr)), series(results.MetricJFI, along("ngtcp2-batch-fairness", batch, stackAxis, nc)), Abs(0.02), 1),
			},
			Unjudged: "\"CUBIC slightly more resilient at first\" is not judged; nor is the comparison with aioquic's DC client.",
		},
		{
			ID: "fig13a", Figures: "Figs. 13a; 14a, 15a", Title: "ngtcp2: split",
			Paper: "The controllers barely differ; ngtcp2 is above aioquic and TCP at balanced splits; its DC client grows more aggressively, so it is slightly unfair where aioquic was fair.",
			Shape: append([]Check{
				WithinAlong(series(results.MetricGoodput, along("ngtcp2-split", split, stackAxis, nr)), series(results.MetricGoodput, along("ngtcp2-split", split, stackAxis, nc)), Rel(CloseTol), 1),
				Greater(term(results.MetricGoodput, at("ngtcp2-split", split, "1:1", stackAxis, nc)), term(results.MetricGoodput, at("ngtcp2-split", split, "1:1", stackAxis, tc))),
				Greater(term(results.MetricGoodput, at("ngtcp2-split", split, "1:1", stackAxis, nr)), term(results.MetricGoodput, at("split", split, "1:1", stackAxis, ql))),
			}, perCC(func(cc string) []Check {
				p := at("ngtcp2-split-fairness", split, "1:1", stackAxis, cc)
				return []Check{
					Greater(term(dc, p), term(link1, p)),
					Greater(term(results.MetricJFI, at("split-fairness", split, "1:1")), term(results.MetricJFI, p)),
				}
			})...),
			Unjudged: "quic-go stands in for aioquic. \"Barely differ\" is read as within 10 % at every split.",
		},
		{
			ID: "fig13b", Figures: "Figs. 13b; 14b, 15b", Title: "ngtcp2: high-delay ratio",
			Paper: "Throughput clearly below aioquic's throughout (pacer differences); fairness: DC fairer at balanced ratios with a slower drop; beyond 2:1 DC's throughput equals aioquic's; the single-link client on the high-delay link does much worse at skewed ratios.",
			Shape: append([]Check{
				GreaterAlong(series(results.MetricGoodput, along("delay-ratio-high", dr, stackAxis, ql)), series(results.MetricGoodput, along("ngtcp2-delay-ratio-high", dr, stackAxis, nr))),
				GreaterAlong(series(results.MetricGoodput, along("delay-ratio-high", dr, stackAxis, ql)), series(results.MetricGoodput, along("ngtcp2-delay-ratio-high", dr, stackAxis, nc))),
			}, perCC(func(cc string) []Check {
				p := at("ngtcp2-delay-ratio-high-fairness", dr, "5:1", stackAxis, cc)
				return []Check{Greater(term(link2, p), term(link1, p))}
			})...),
			Unjudged: "quic-go stands in for aioquic, whose pacer differs from both; the fairness comparison with aioquic is not judged. link1 carries the larger delay.",
		},
		{
			ID: "fig13c", Figures: "Figs. 13c; 14c, 15c", Title: "ngtcp2: loss",
			Paper: "Small differences from the baseline; ngtcp2 CUBIC clearly above TCP CUBIC; at 0.08 % loss TCP CUBIC mostly stays in its Reno-friendly mode, so TCP CUBIC, TCP NewReno and ngtcp2 NewReno perform alike.",
			Shape: append([]Check{
				GreaterAlong(series(results.MetricGoodput, along("ngtcp2-loss", loss, stackAxis, nc).Only("0.5%", "1%", "2%")), series(results.MetricGoodput, along("ngtcp2-loss", loss, stackAxis, tc))),
				Within(term(results.MetricGoodput, at("ngtcp2-loss", loss, "0.08%", stackAxis, tc)), term(results.MetricGoodput, at("loss", loss, "0.08%", stackAxis, tr)), Rel(CloseTol)),
				Within(term(results.MetricGoodput, at("ngtcp2-loss", loss, "0.08%", stackAxis, nr)), term(results.MetricGoodput, at("loss", loss, "0.08%", stackAxis, tr)), Rel(CloseTol)),
			}, perCC(func(cc string) []Check {
				return []Check{Within(term(results.MetricJFI, at("ngtcp2-loss-fairness", loss, "0.5%", stackAxis, cc)), term(results.MetricJFI, at("ngtcp2-loss-fairness", loss, "0%", stackAxis, cc)), Abs(JFITol))}
			})...),
			Unjudged: "\"Clearly above\" is judged at the lossy points 0.5–2 %; \"alike\" is read as within 10 %; fairness as in Fig. 10c.",
		},
		{
			ID: "fig16-19", Figures: "Figs. 16–19", Title: "ngtcp2 NewReno and CUBIC: bandwidth ratio with fixed (16) and matched (17) split, low-delay ratio (18), duplication (19)",
			Paper: "The same conclusions as for aioquic; ngtcp2 is more aggressive with higher throughput; duplication's protection holds across implementations and controllers.",
			Shape: append([]Check{
				ArgmaxIn(series(results.MetricGoodput, along("ngtcp2-bw-ratio", bw, stackAxis, nc)), "1:1"),
				Greater(term(results.MetricGoodput, at("ngtcp2-bw-ratio-matched", bwm, "5:1", stackAxis, nc)), term(results.MetricGoodput, at("ngtcp2-bw-ratio", bw, "5:1", stackAxis, nc))),
				Flat(series(results.MetricGoodput, along("ngtcp2-delay-ratio-low", dr, stackAxis, nc)), Rel(CloseTol)),
				Greater(term(results.MetricGoodput, at("ngtcp2-bw-ratio", bw, "1:1", stackAxis, nc)), term(results.MetricGoodput, at("bw-ratio", bw, "1:1", stackAxis, ql))),
				Steadier(series(results.MetricGoodput, along("ngtcp2-duplication", loss, stackAxis, nc)), series(results.MetricGoodput, along("ngtcp2-loss", loss, stackAxis, nc)), "0%", "5%"),
			}, perCC(func(cc string) []Check {
				return []Check{
					Greater(term(results.MetricJFI, at("ngtcp2-bw-ratio-matched-fairness", bwm, "5:1", stackAxis, cc)), term(results.MetricJFI, at("ngtcp2-bw-ratio-fairness", bw, "5:1", stackAxis, cc))),
					GreaterAlong(series(dc, along("ngtcp2-duplication-fairness", loss, stackAxis, cc)), series(link1, along("ngtcp2-duplication-fairness", loss, stackAxis, cc))),
				}
			})...),
			Unjudged: "\"The same conclusions\" is judged by the central claim of each of Figs. 7b, 7c, 8b/8c, 9a, 11a/11b; quic-go stands in for aioquic.",
		},
	}
}

// traceFindings are the StaticA repeats (Figs. 20–22) and the queue study.
func traceFindings() []Finding {
	const (
		batch, split, dr, loss = "dc.batch", "dc.split", "link.delay_ratio", "link.loss"
		ql, nc                 = StackQuicLarge, StackNgtcp2Cubic
	)
	return []Finding{
		{
			ID: "fig20a-c", Figures: "Figs. 20a–c", Title: "StaticA trace, aioquic: batch size, high-delay ratio, loss",
			Paper: "The same trends as with constant links; the pacer's effect on the delay ratio shows more clearly.",
			Shape: []Check{
				Greater(term(results.MetricGoodput, at("lte-batch", batch, "150", stackAxis, ql)), term(results.MetricGoodput, at("lte-batch", batch, "500", stackAxis, ql))),
				Greater(term(results.MetricJFI, at("lte-batch-fairness", batch, "100")), term(results.MetricJFI, at("lte-batch-fairness", batch, "500"))),
				Decreasing(series(results.MetricGoodput, along("lte-delay-ratio-high", dr, stackAxis, ql))),
				Decreasing(series(results.MetricJFI, along("lte-delay-ratio-high-fairness", dr))),
				Decreasing(series(results.MetricGoodput, along("lte-loss", loss, stackAxis, ql))),
			},
			Unjudged: "quic-go stands in for aioquic; the pacer's effect is not judged.",
		},
		{
			ID: "fig20d-f", Figures: "Figs. 20d–f", Title: "StaticA trace, ngtcp2 CUBIC: batch size, high-delay ratio, loss",
			Paper: "The same trends; ngtcp2 is more aggressive; CUBIC gives higher throughput.",
			Shape: []Check{
				Greater(term(results.MetricGoodput, at("lte-ngtcp2-batch", batch, "150", stackAxis, nc)), term(results.MetricGoodput, at("lte-ngtcp2-batch", batch, "500", stackAxis, nc))),
				Greater(term(results.MetricJFI, at("lte-ngtcp2-batch-fairness", batch, "100")), term(results.MetricJFI, at("lte-ngtcp2-batch-fairness", batch, "500"))),
				Decreasing(series(results.MetricGoodput, along("lte-ngtcp2-delay-ratio-high", dr, stackAxis, nc))),
				Decreasing(series(results.MetricGoodput, along("lte-ngtcp2-loss", loss, stackAxis, nc))),
				Greater(term(results.MetricGoodput, at("lte-ngtcp2-batch", batch, "100", stackAxis, nc)), term(results.MetricGoodput, at("lte-batch", batch, "100", stackAxis, ql))),
				Greater(term(dc, at("lte-ngtcp2-batch-fairness", batch, "100")), term(dc, at("lte-batch-fairness", batch, "100"))),
			},
			Unjudged: "quic-go stands in for aioquic in the comparisons.",
		},
		{
			ID: "fig21-22", Figures: "Figs. 21, 22", Title: "StaticA trace, aioquic and ngtcp2: split, low-delay ratio, duplication under loss",
			Paper: "The same trends, with smaller differences between implementations and controllers.",
			Shape: []Check{
				ArgmaxIn(series(results.MetricGoodput, along("lte-split", split, stackAxis, ql)), "1:1"),
				ArgmaxIn(series(results.MetricGoodput, along("lte-ngtcp2-split", split, stackAxis, nc)), "1:1"),
				Flat(series(results.MetricGoodput, along("lte-delay-ratio-low", dr, stackAxis, ql)), Rel(CloseTol)),
				Flat(series(results.MetricGoodput, along("lte-ngtcp2-delay-ratio-low", dr, stackAxis, nc)), Rel(CloseTol)),
				Steadier(series(results.MetricGoodput, along("lte-duplication", loss, stackAxis, ql)), series(results.MetricGoodput, along("lte-loss", loss, stackAxis, ql)), "0%", "5%"),
				GreaterAlong(series(dc, along("lte-duplication-fairness", loss)), series(link1, along("lte-duplication-fairness", loss))),
				GreaterAlong(series(dc, along("lte-ngtcp2-duplication-fairness", loss)), series(link1, along("lte-ngtcp2-duplication-fairness", loss))),
			},
			Unjudged: "\"Smaller differences between implementations\" is not judged.",
		},
		{
			ID: "queue", Figures: "emu study", Title: "queue-length sensitivity of Figs. 8b, 8c and 11b",
			Paper: "The paper does not state its rate limiter's queue. This study shows JFI at 5:1 (50/50 and matched split) and under duplication (0 % and 2 % loss) for queues from 50 ms to 1000 packets.",
			Extra: []string{"queue-fairness"}, Unjudged: "A study of emu's own choice, not a finding of the paper.",
		},
		{
			ID: "ngtcp2-queue", Figures: "emu study", Title: "queue-length sensitivity of Figs. 14b and 15b",
			Paper: "The paper does not state its rate limiter's queue. This study shows ngtcp2's JFI and the DC client's share at high delay (1:1), NewReno and CUBIC, for queues from 50 ms to 1000 packets: with CUBIC and 100 ms queues the DC client starves.",
			Extra: []string{"ngtcp2-queue-fairness"}, Unjudged: "A study of emu's own choice, not a finding of the paper.",
		},
		{
			ID: "jitter", Figures: "emu study", Title: "jitter-model sensitivity of Figs. 9b, 10b and 13b",
			Paper: "The paper does not say whether its tc jitter reordered packets (netem's does, unless it also limits the rate). This study shows the high-delay throughput (quic-go, ngtcp2, TCP) and fairness at delay ratios 1:1 and 5:1 with emu's order-keeping jitter, netem-like independent delays and no jitter.",
			Extra: []string{"jitter", "jitter-fairness"}, Unjudged: "A study of emu's own choice, not a finding of the paper.",
		},
	}
}
