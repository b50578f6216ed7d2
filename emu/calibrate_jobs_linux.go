package emu

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/dc-emu/emu/emu/config"
	fid "github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/internal/procstat"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/pdcp"
)

// CalibrateJobs measures what running 1, 2, …, o.Jobs emulations of base
// at once costs (results.JobsCalibration): each level starts that many
// emulations, loads each with its first flow over link1 through both PDCP
// proxies for o.Duration, probes link2's RTT meanwhile, and reads every
// delay line's lateness.
func CalibrateJobs(ctx context.Context, base config.Config, o CalibrateOptions) (*results.JobsCalibration, error) {
	if o.Jobs <= 0 {
		return nil, errors.New("calibrate: --jobs must be at least 1")
	}
	if o.Duration <= 0 {
		o.Duration = 10 * time.Second
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	cfg := base
	cfg.Flows = append([]config.Flow(nil), base.Flows[:1]...)
	cfg.Flows[0].Size, cfg.Flows[0].Duration, cfg.Flows[0].Path = 0, o.Duration, config.PathDC
	cfg.Links[0].Trace, cfg.Links[1].Trace = "", ""
	cfg.DC.Enabled, cfg.DC.Sched.Kind, cfg.DC.Sched.Split = true, pdcp.KindBatch, pdcp.Split{1, 0}
	c := &results.JobsCalibration{Cores: runtime.NumCPU(), Method: results.JobsMethod}
	for n := 1; n <= o.Jobs; n++ {
		lvl, err := calibrateLevel(ctx, cfg, o, n)
		if err != nil {
			return nil, fmt.Errorf("calibrate %d at once: %w", n, err)
		}
		c.Levels = append(c.Levels, *lvl)
		if o.Status != nil {
			fmt.Fprintf(o.Status, "%d at once: goodput %.2f Mbit/s, idle RTT %.3f ms (p99 %.3f), delay-line lateness p99 %.0f µs, max %.0f µs, CPU %.0f %%, %d degraded\n",
				n, lvl.GoodputMbps.Mean, lvl.RTTMs.Mean, lvl.RTTP99Ms, lvl.LateP99Us, lvl.LateMaxUs, 100*lvl.CPU, lvl.Degraded)
		}
	}
	return c, nil
}

// oneOfMany is what one emulation of a level measured.
type oneOfMany struct {
	goodput, rttMean, rttP99 float64
	lost                     int
	lateP99, lateMax         float64 // µs
	fid                      *fid.Fidelity
}

// calibrateLevel runs n emulations at once, each in its own namespaces with
// its own seed.
func calibrateLevel(ctx context.Context, cfg config.Config, o CalibrateOptions, n int) (*results.JobsLevel, error) {
	ems := make([]*network.Emulation, n)
	defer func() {
		for _, em := range ems {
			if em != nil {
				em.Close()
			}
		}
	}()
	for i := range ems {
		c := cfg
		c.Flows = slices.Clone(cfg.Flows)
		c.Seed = o.Seed + uint64(i)
		em, err := network.Start(ctx, c, network.Options{Command: "calibrate", ExtraClients: []string{config.PathLink2}})
		if err != nil {
			return nil, err
		}
		ems[i] = em
	}
	h0, hostErr := procstat.ReadHost()
	got := make([]oneOfMany, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, em := range ems {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = loadAndProbe(ctx, em, o, filepath.Join(o.Out, fmt.Sprintf("jobs-%d-%d", n, i+1)))
		}()
	}
	wg.Wait()
	h1, hostErr2 := procstat.ReadHost()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	lvl := &results.JobsLevel{Jobs: n, LinkMbps: cfg.Links[0].Down.Rate / 1e6}
	var gp, rtt []float64
	for _, g := range got {
		gp, rtt = append(gp, g.goodput), append(rtt, g.rttMean)
		lvl.RTTP99Ms = max(lvl.RTTP99Ms, g.rttP99)
		lvl.Lost += g.lost
		lvl.LateP99Us, lvl.LateMaxUs = max(lvl.LateP99Us, g.lateP99), max(lvl.LateMaxUs, g.lateMax)
		if g.fid != nil && g.fid.Status == fid.Degraded {
			lvl.Degraded++
			for _, ck := range g.fid.Failed() {
				if name := ck.Name + " " + ck.Subject; !slices.Contains(lvl.Checks, name) {
					lvl.Checks = append(lvl.Checks, name)
				}
			}
		}
	}
	lvl.GoodputMbps, lvl.RTTMs = meanSD(gp), meanSD(rtt)
	lvl.RTTP99Ms = results.Round3(lvl.RTTP99Ms)
	if hostErr == nil && hostErr2 == nil {
		u := procstat.HostBetween(h0, h1)
		lvl.CPU, lvl.Steal = results.Round3(u.Busy), results.Round3(u.Steal)
	}
	return lvl, nil
}

// loadAndProbe runs em's flow into out while probing link2 from its
// client, then reads the delay lines' lateness.
func loadAndProbe(ctx context.Context, em *network.Emulation, o CalibrateOptions, out string) (oneOfMany, error) {
	var m oneOfMany
	probes := int(o.Duration / (10 * time.Millisecond))
	var rtts []time.Duration
	var lost int
	var pingErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		rtts, lost, pingErr = em.Ping(ctx, "cli2", "srv", probes, 10*time.Millisecond)
	}()
	sum, err := RunFlows(ctx, em, RunOptions{Out: out})
	<-done
	if err != nil {
		return m, err
	}
	if pingErr != nil {
		return m, fmt.Errorf("probes: %w", pingErr)
	}
	if len(rtts) == 0 {
		return m, errors.New("no probe answered")
	}
	ms := make([]float64, len(rtts))
	for i, r := range rtts {
		ms[i] = float64(r) / 1e6
	}
	st, _ := results.SummarizeDelays(ms)
	m.rttMean, m.rttP99, m.lost = st.Mean, st.P99, lost
	m.goodput = sum.Flows[0].GoodputMbps
	m.fid = sum.Fidelity
	for _, d := range em.Dirs() {
		if d.Loop == nil {
			continue
		}
		late := d.Loop.Snapshot().Late
		m.lateP99 = max(m.lateP99, float64(late.Quantile(0.99))/1e3)
		m.lateMax = max(m.lateMax, float64(late.Quantile(1))/1e3)
	}
	return m, nil
}
