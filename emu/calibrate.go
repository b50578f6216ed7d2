package emu

import (
	"io"
	"time"
)

// CalibrateOptions tune Calibrate.
type CalibrateOptions struct {
	Runs     int           // pairs of runs (with and without PDCP); default 10
	Duration time.Duration // length of each throughput measurement; default 10 s
	Pings    int           // RTT probes per run, 10 ms apart; default 100
	Out      string        // directory for the runs' result directories
	Binary   string        // the emu executable started for endpoints; "" = this one
	Seed     uint64        // first seed; run i uses Seed+i for both variants
	Status   io.Writer
	// Jobs, for CalibrateJobs: measure 1 to Jobs emulations at once.
	Jobs int
}
