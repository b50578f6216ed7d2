package emu

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/stats"
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
	var rtt, thr, cpu, perGbps [2][]float64
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
			m, err := calibrateOnce(ctx, cfg, o, filepath.Join(o.Out, name))
			if err != nil {
				return nil, fmt.Errorf("calibrate %s: %w", name, err)
			}
			rtt[v], thr[v], cpu[v] = append(rtt[v], m.rtt), append(thr[v], m.goodput), append(cpu[v], m.cpu)
			if m.goodput > 0 {
				perGbps[v] = append(perGbps[v], m.cpu/(m.goodput/1000))
			}
			if o.Status != nil {
				fmt.Fprintf(o.Status, "run %d/%d %-12s RTT %.3f ms, throughput %.2f Mbit/s, emulator %.3f cores\n",
					i+1, o.Runs, map[bool]string{false: "without PDCP", true: "with PDCP"}[withPDCP], m.rtt, m.goodput, m.cpu)
			}
		}
	}
	side := func(v int) results.CalibrationSide {
		return results.CalibrationSide{RTTMs: meanSD(rtt[v]), ThroughputMbps: meanSD(thr[v]), EmulatorCores: meanSD(cpu[v]), EmulatorCoresPerGbps: meanSD(perGbps[v])}
	}
	c := &results.Calibration{WithoutPDCP: side(0), WithPDCP: side(1), Runs: o.Runs, Method: results.CalibrationMethod}
	c.AddedRTTMs = results.Round3(c.WithPDCP.RTTMs.Mean - c.WithoutPDCP.RTTMs.Mean)
	c.AddedCoresPerGbps = results.Round3(c.WithPDCP.EmulatorCoresPerGbps.Mean - c.WithoutPDCP.EmulatorCoresPerGbps.Mean)
	if c.WithoutPDCP.ThroughputMbps.Mean > 0 {
		c.ThroughputLossPct = results.Round3(100 * (1 - c.WithPDCP.ThroughputMbps.Mean/c.WithoutPDCP.ThroughputMbps.Mean))
	}
	return c, nil
}

// calibration is one run's figures: the idle RTT (ms), the goodput
// (Mbit/s) and the emulator's own CPU over the flows (cores).
type calibration struct {
	rtt, goodput, cpu float64
}

// calibrateOnce builds one variant, measures its idle RTT, then its
// throughput and the CPU the emulator's process took meanwhile: its
// delay lines, proxies, trace players and samplers, with the kernel work
// their system calls do (the reinjected or written packets' forwarding);
// not the endpoints, which are processes of their own, nor softirq work
// the kernel defers to its own threads.
func calibrateOnce(ctx context.Context, cfg config.Config, o CalibrateOptions, out string) (calibration, error) {
	var m calibration
	em, err := network.Start(ctx, cfg, network.Options{Command: "calibrate"})
	if err != nil {
		return m, err
	}
	defer em.Close()
	rtts, _, err := em.Ping(ctx, "cli", "srv", o.Pings, 10*time.Millisecond)
	if err != nil {
		return m, err
	}
	if len(rtts) == 0 {
		return m, fmt.Errorf("no ping answered")
	}
	var sum time.Duration
	for _, r := range rtts {
		sum += r
	}
	m.rtt = float64(sum) / float64(len(rtts)) / 1e6
	var ru0, ru1 unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru0); err != nil {
		return m, err
	}
	start := time.Now()
	s, err := RunFlows(ctx, em, RunOptions{Out: out, Binary: o.Binary})
	if err != nil {
		return m, err
	}
	wall := time.Since(start)
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru1); err != nil {
		return m, err
	}
	used := time.Duration(ru1.Utime.Nano()-ru0.Utime.Nano()) + time.Duration(ru1.Stime.Nano()-ru0.Stime.Nano())
	m.goodput, m.cpu = s.Flows[0].GoodputMbps, used.Seconds()/wall.Seconds()
	return m, nil
}

// meanSD is the mean and sample standard deviation of v (stats.Summarize)
// as the calibration files write them: rounded to 3 decimals, SD 0 for one
// value.
func meanSD(v []float64) results.MeanSD {
	s := stats.Summarize(v)
	sd := s.SD
	if math.IsNaN(sd) {
		sd = 0
	}
	return results.MeanSD{Mean: results.Round3(s.Mean), SD: results.Round3(sd)}
}
