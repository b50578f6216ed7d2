// Package emu runs experiments over emulated networks: it owns a run from
// its configuration to its results directory. Its stages, in order:
// start the network (package network), compile the flows' endpoints
// (flows.go), start the captures (pcap_linux.go), run the loop that
// starts servers and clients as processes and decides when the run is
// over (run_linux.go, process_linux.go, with package runloop's decisions),
// measure while it runs (measure_linux.go: the rate limiters, the PDCP
// buffers, the threads' and processes' CPU), then gather what the run
// recorded, reading each endpoint log once and judging fidelity
// (record.go, record_linux.go, fidelity_linux.go), summarize it and lay
// out timeseries.csv as pure functions of that record (summary.go,
// timeseries.go, tested without root), and write every file of the run
// directory (results_linux.go). Calibrate and CalibrateJobs measure the
// emulator itself with runs.
//
// Threads: the run loop is one goroutine that starts the clients, samples
// the rate limiters and decides when the run is over; each endpoint is a
// process of its own (the emu binary re-executed as `emu endpoint`) inside
// its node's namespace, so a GC pause in one cannot stall another.
//
// It holds no package-level mutable state, so several runs can share a
// process. Configuration, result formats and analysis are not its job
// (packages config, results and analysis): it only fills them.
package emu
