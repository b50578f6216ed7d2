// Package durhist is the one bin layout and quantile rule of emu's duration
// histograms. The PDCP receiver's hold times (counters.json) and the delay
// lines' release lateness (counters.json and the fidelity verdict) both
// count durations in these bins and read their quantiles by this rule, so
// a p99 means the same thing wherever a run reports one.
//
// Its stages are the two halves of a histogram's life: Bin places a
// duration when it is counted, on the packet path (no allocation, no
// branch but the range checks), and Quantile reads the counts afterwards.
// The counts themselves are the caller's: pdcp keeps plain integers on its
// one goroutine, the delay line atomics that a reader may snapshot while
// the packet thread adds.
package durhist
