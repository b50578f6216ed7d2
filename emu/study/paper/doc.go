// Package paper is the study that reproduces "QUIC Throughput and
// Fairness over Dual Connectivity" (Computer Networks): its presets, one
// pair per parameter the paper varies (throughput, fairness) in each
// family of repeats (quic-go and ngtcp2, constant links and the StaticA
// trace), the reference and sensitivity presets beside them, and the
// reproduction's parts and scales that emu reproduce runs.
//
// Its stages are those of every study (emu/sweep's Study): the engine
// plans, runs and aggregates the presets' sweeps; emu/findings judges the
// paper's findings on the tables.
package paper
