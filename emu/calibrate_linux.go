package emu

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/pdcp"
)

// Calibrate measures the PDCP proxies' own cost (see results.Calibration).
func Calibrate(ctx context.Context, base config.Config, o CalibrateOptions) (*results.Calibration, error) {
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
			cfg.Flows = append([]config.Flow(nil), base.Flows[:1]...)
			cfg.Flows[0].Size, cfg.Flows[0].Duration = 0, o.Duration
			cfg.Links[0].Trace, cfg.Links[1].Trace = "", ""
			cfg.Seed = o.Seed + uint64(i)
			cfg.DC.Enabled = withPDCP
			cfg.DC.Sched.Kind, cfg.DC.Sched.Split = pdcp.KindBatch, pdcp.Split{1, 0}
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
	side := func(v int) results.CalibrationSide {
		return results.CalibrationSide{RTTMs: meanSD(rtt[v]), ThroughputMbps: meanSD(thr[v])}
	}
	c := &results.Calibration{WithoutPDCP: side(0), WithPDCP: side(1), Runs: o.Runs, Method: results.CalibrationMethod}
	c.AddedRTTMs = results.Round3(c.WithPDCP.RTTMs.Mean - c.WithoutPDCP.RTTMs.Mean)
	if c.WithoutPDCP.ThroughputMbps.Mean > 0 {
		c.ThroughputLossPct = results.Round3(100 * (1 - c.WithPDCP.ThroughputMbps.Mean/c.WithoutPDCP.ThroughputMbps.Mean))
	}
	return c, nil
}

// calibrateOnce builds one variant, measures its idle RTT, then its
// throughput, and returns both (ms, Mbit/s).
func calibrateOnce(ctx context.Context, cfg config.Config, o CalibrateOptions, out string) (float64, float64, error) {
	em, err := network.Start(ctx, cfg, network.Options{Command: "calibrate"})
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
	s, err := RunFlows(ctx, em, RunOptions{Out: out})
	if err != nil {
		return 0, 0, err
	}
	return float64(sum) / float64(len(rtts)) / 1e6, s.Flows[0].GoodputMbps, nil
}
