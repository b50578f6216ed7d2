package emu

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	"github.com/dc-emu/emu/analysis"
)

// CalibrateOptions tune Calibrate.
type CalibrateOptions struct {
	Runs     int           // pairs of runs (with and without PDCP); default 10
	Duration time.Duration // length of each throughput measurement; default 10 s
	Pings    int           // RTT probes per run, 10 ms apart; default 100
	Out      string        // directory for the runs' result directories
	Seed     uint64        // first seed; run i uses Seed+i for both variants
	Status   io.Writer
}

// MeanSD is a mean and sample standard deviation over runs.
type MeanSD struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

// CalibrationSide is one variant's RTT and throughput over the runs.
type CalibrationSide struct {
	RTTMs          MeanSD `json:"rtt_ms"`
	ThroughputMbps MeanSD `json:"throughput_mbps"`
}

// Calibration reproduces the paper's Table 2 on this machine: the default
// link (20 Mbit/s, 10 ms one-way delay with 10% coefficient of variation)
// measured without and with the two PDCP proxies in the path.
type Calibration struct {
	WithoutPDCP CalibrationSide `json:"without_pdcp"`
	WithPDCP    CalibrationSide `json:"with_pdcp"`
	Runs        int             `json:"runs"`
	// What the proxies cost: RTT added and throughput lost.
	AddedRTTMs        float64 `json:"added_rtt_ms"`
	ThroughputLossPct float64 `json:"throughput_loss_pct"`
	Method            string  `json:"method"`
}

const calibrationMethod = "Both variants send everything over link1 (20 Mbit/s, 10 ms ±10% one way each direction, constant rate): without PDCP the DC client is routed over link1 directly; with PDCP its traffic passes both proxies (dc.split=1:0). RTT: mean of UDP ping-pong probes (64 B, 10 ms apart) on the idle path; throughput: goodput of a quic-go download for the measurement window. Run i of both variants uses the same seed, so both see the same jitter."

// Calibrate measures the PDCP proxies' own cost (see Calibration).
func Calibrate(ctx context.Context, base Config, o CalibrateOptions) (*Calibration, error) {
	if o.Runs <= 0 {
		o.Runs = 10
	}
	if o.Duration <= 0 {
		o.Duration = 10 * time.Second
	}
	if o.Pings <= 0 {
		o.Pings = 100
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	var rtt, thr [2][]float64
	for i := range o.Runs {
		for v, withPDCP := range []bool{false, true} {
			cfg := base
			cfg.Flows = append([]Flow(nil), base.Flows[:1]...)
			cfg.Flows[0].Size, cfg.Flows[0].Duration = 0, o.Duration
			cfg.Links[0].Trace, cfg.Links[1].Trace = "", ""
			cfg.Seed = o.Seed + uint64(i)
			cfg.DC.Enabled = withPDCP
			cfg.DC.Scheduler, cfg.DC.Split = "batch", "1:0"
			name := fmt.Sprintf("%s-%02d", map[bool]string{false: "without-pdcp", true: "with-pdcp"}[withPDCP], i)
			r, t, err := calibrateOnce(ctx, cfg, o, filepath.Join(o.Out, name))
			if err != nil {
				return nil, fmt.Errorf("calibrate %s: %w", name, err)
			}
			rtt[v], thr[v] = append(rtt[v], r), append(thr[v], t)
			if o.Status != nil {
				fmt.Fprintf(o.Status, "run %d/%d %-12s RTT %.3f ms, throughput %.2f Mbit/s\n", i+1, o.Runs, map[bool]string{false: "without PDCP", true: "with PDCP"}[withPDCP], r, t)
			}
		}
	}
	side := func(v int) CalibrationSide {
		r, t := analysis.Summarize(rtt[v]), analysis.Summarize(thr[v])
		return CalibrationSide{RTTMs: MeanSD{round3(r.Mean), round3(nanZero(r.SD))}, ThroughputMbps: MeanSD{round3(t.Mean), round3(nanZero(t.SD))}}
	}
	c := &Calibration{WithoutPDCP: side(0), WithPDCP: side(1), Runs: o.Runs, Method: calibrationMethod}
	c.AddedRTTMs = round3(c.WithPDCP.RTTMs.Mean - c.WithoutPDCP.RTTMs.Mean)
	if c.WithoutPDCP.ThroughputMbps.Mean > 0 {
		c.ThroughputLossPct = round3(100 * (1 - c.WithPDCP.ThroughputMbps.Mean/c.WithoutPDCP.ThroughputMbps.Mean))
	}
	return c, nil
}

func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// calibrateOnce builds one variant, measures its idle RTT, then its
// throughput, and returns both (ms, Mbit/s).
func calibrateOnce(ctx context.Context, cfg Config, o CalibrateOptions, out string) (float64, float64, error) {
	em, err := Start(ctx, cfg, StartOptions{Command: "calibrate"})
	if err != nil {
		return 0, 0, err
	}
	defer em.Close()
	rtts, _, err := em.Ping(ctx, "cli", "srv", o.Pings, 10*time.Millisecond)
	if err != nil {
		return 0, 0, err
	}
	if len(rtts) == 0 {
		return 0, 0, fmt.Errorf("no ping answered")
	}
	var sum time.Duration
	for _, r := range rtts {
		sum += r
	}
	s, err := em.RunFlows(ctx, RunOptions{Out: out})
	if err != nil {
		return 0, 0, err
	}
	return float64(sum) / float64(len(rtts)) / 1e6, s.Flows[0].GoodputMbps, nil
}

// WriteCalibration prints a calibration as the paper's Table 2.
func WriteCalibration(w io.Writer, c *Calibration) {
	fmt.Fprintf(w, "\nPDCP proxy overhead on this machine (%d runs each, mean ± sd)\n\n", c.Runs)
	fmt.Fprintf(w, "%-14s %-22s %s\n", "", "RTT (ms)", "throughput (Mbit/s)")
	for _, r := range []struct {
		name string
		s    CalibrationSide
	}{{"without PDCP", c.WithoutPDCP}, {"with PDCP", c.WithPDCP}} {
		fmt.Fprintf(w, "%-14s %7.3f ± %-12.3f %7.2f ± %.2f\n", r.name, r.s.RTTMs.Mean, r.s.RTTMs.SD, r.s.ThroughputMbps.Mean, r.s.ThroughputMbps.SD)
	}
	fmt.Fprintf(w, "%-14s %+7.3f ms %19.2f%% throughput\n", "proxies cost", c.AddedRTTMs, -c.ThroughputLossPct)
	fmt.Fprintf(w, "\npaper (Table 2): +2 ms RTT, 18.28 → 17.00 Mbit/s (−7.0%%)\n")
	fmt.Fprintf(w, "method: %s\n", c.Method)
}
