// Package findings judges a paper's findings against emu's aggregated
// sweeps: one Finding per figure (or group of figures) of the paper, with
// the paper's finding paraphrased with its numbers, the presets that
// produce emu's data for it and a rule, written as Checks whose words are
// generated from the same values the code evaluates. The findings of "QUIC
// Throughput and Fairness over Dual Connectivity" (Computer Networks) are
// its study's (emu/study/paper's Findings), written with PointAt,
// LineAlong, TermAt and SeriesAlong over the study's presets.
//
// Stages: the caller adapts each sweep's aggregated table to a Sweep
// (axes, and per point its labels and each metric's mean, standard
// deviation, 95 % confidence interval and n) and collects them as Results
// by preset name; Evaluate runs every finding's checks over them and
// combines the checks' outcomes into a Verdict; NewReport adds what the run
// was made with (scale, repeats, wall time, emu version), and the report is
// written as reproduce.json (Report.JSON) and as a self-contained HTML page
// (HTML) with emu's figures, passed in as SVG bytes, and tables beside the
// paper's text.
//
// A check decides a difference only when it exceeds the half-width of its
// own 95 % confidence interval (√(CI₁² + CI₂²) for two independent means);
// otherwise it is inconclusive. Shape checks judge what the paper says
// without a number (a peak, an order, a trend); magnitude checks compare
// with the paper's numbers within a stated tolerance.
//
// The package is pure: it reads no files, runs nothing and does not import
// the emu root package or emu/sweep (the paper's study imports it, and its
// tests check that every finding's points exist in the presets' plans).
package findings
