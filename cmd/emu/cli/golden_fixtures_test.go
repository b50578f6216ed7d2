package cli

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study"
	"github.com/dc-emu/emu/emu/sweep"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// The finished sweeps whose re-analysis is golden (golden_analyze_test.go)
// live in testdata/sweeps/<name>: plan.json, runs.csv and runs/*/summary.json,
// nothing derived. They were made once by TestMakeSweepFixtures with the
// fake runner below and are inputs, not goldens: EMU_GOLDEN_UPDATE=1 does
// not touch them, so that the goldens are regenerated from the same
// summaries whatever the code that planned and ran them becomes.
// EMU_SWEEP_FIXTURES=1 go test ./cmd/emu/cli -run TestMakeSweepFixtures
// makes them again (and then every re-analysis golden must be reviewed).

const sweepFixtures = "testdata/sweeps"

// sweepFixture is one finished sweep: a preset with its axes cut down to
// the values keep names (an axis keep does not name keeps all its
// values), run repeat times.
type sweepFixture struct {
	name   string
	keep   map[string][]string
	repeat int
	// fail is a run that failed; drop a run whose directory was deleted
	// after runs.csv recorded it (the record stands in for it).
	fail, drop string
}

var fixtureSweeps = []sweepFixture{
	{name: "batch", keep: map[string][]string{"dc.batch": {"25", "100", "500"}}, repeat: 2, drop: "p04-r2"},
	{name: "batch-fairness", keep: map[string][]string{"dc.batch": {"25", "100", "500"}}, repeat: 2, fail: "p02-r2"},
	{name: "satellite", keep: map[string][]string{"pair": {"10M/2M"}, "rtt": {"100ms", "500ms"}, "size": {"1MB", "10MB"}}, repeat: 2},
	{name: "multipath-grid", keep: map[string][]string{"capacity_ratio": {"1:1", "5:1"}, "delay_ratio": {"1:1", "10:1"}}, repeat: 2},
	{name: "rrul", keep: map[string][]string{"path": {"dc-batch", "dc-adaptive", "link1"}}, repeat: 2},
}

// plan is the fixture's plan: its preset with the axes cut down.
func (fx sweepFixture) plan(t *testing.T) *results.Plan {
	t.Helper()
	pr, ok := study.All().Preset(fx.name)
	if !ok {
		t.Fatalf("no preset %s", fx.name)
	}
	spec, err := pr.Spec()
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range spec.Axes {
		keep, ok := fx.keep[a.Key]
		if !ok {
			continue
		}
		cut := a
		cut.Values, cut.Settings = nil, nil
		for j, v := range a.Values {
			if slices.Contains(keep, v) {
				cut.Values = append(cut.Values, v)
				cut.Settings = append(cut.Settings, a.Settings[j])
			}
		}
		if len(cut.Values) != len(keep) {
			t.Fatalf("%s: axis %s has not all of %v: %v", fx.name, a.Key, keep, a.Values)
		}
		spec.Axes[i] = cut
	}
	spec.Repeat = fx.repeat
	p, err := sweep.NewPlan(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMakeSweepFixtures writes testdata/sweeps anew; it runs only with
// EMU_SWEEP_FIXTURES=1.
func TestMakeSweepFixtures(t *testing.T) {
	if os.Getenv("EMU_SWEEP_FIXTURES") != "1" {
		t.Skip("EMU_SWEEP_FIXTURES=1 writes the sweep fixtures of the re-analysis goldens anew")
	}
	for _, fx := range fixtureSweeps {
		dir := filepath.Join(sweepFixtures, fx.name)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		p := fx.plan(t)
		if _, err := sweep.Prepare(dir, p, false); err != nil {
			t.Fatal(err)
		}
		f := fixtureRunner(fx.fail)
		if _, err := sweep.Execute(context.Background(), dir, p, sweep.Options{Runner: f.Run}); err != nil {
			t.Fatal(err)
		}
		// Finish writes runs.csv; what else it derives is the goldens'.
		if _, err := sweep.Finish(dir, sweep.AggregateOptions{Studies: study.All()}); err != nil {
			t.Fatal(err)
		}
		for _, derived := range []string{results.CSVFile, results.ReportFile, results.FiguresDir} {
			if err := os.RemoveAll(filepath.Join(dir, derived)); err != nil {
				t.Fatal(err)
			}
		}
		if fx.drop != "" {
			if err := os.RemoveAll(filepath.Join(dir, results.RunsDir, fx.drop)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// fixtureRunner is the fake runner with summaries that carry what a real
// run reports for each kind of flow (sizes and times, delays, objects,
// transactions, datagrams) and each link's throughput, all a function of
// the configuration and the seed; the run named fail fails.
func fixtureRunner(fail string) *sweeptest.Runner {
	return &sweeptest.Runner{
		Goodput:   fixtureGoodput,
		Edit:      fixtureEdit,
		Fail:      func(_ config.Config, run string) bool { return run == fail },
		FailError: "flow dc: server exited",
	}
}

// pathLinks are the links flow f uses.
func pathLinks(f config.Flow) []int {
	switch f.Path {
	case config.PathLink1:
		return []int{0}
	case config.PathLink2:
		return []int{1}
	}
	return []int{0, 1}
}

// pathRate is the capacity of f's path in its direction, in Mbit/s.
func pathRate(cfg config.Config, f config.Flow) float64 {
	var r float64
	for _, l := range pathLinks(f) {
		sh := cfg.Links[l].Down
		if f.Direction == config.DirUp {
			sh = cfg.Links[l].Up
		}
		if sh.Rate > 0 {
			r += sh.Rate / 1e6
		} else {
			r += 20 // a trace's rate
		}
	}
	return r
}

// pathRTT is f's round-trip time without queueing, in ms.
func pathRTT(cfg config.Config, f config.Flow) float64 {
	var d float64
	for _, l := range pathLinks(f) {
		d = math.Max(d, float64(cfg.Links[l].Down.Delay+cfg.Links[l].Up.Delay)/1e6)
	}
	return d
}

// seedShare is a deterministic number in [0, 1) from the seed and i.
func seedShare(cfg config.Config, i int) float64 {
	return float64((cfg.Seed+uint64(i)*7919)%997) / 997
}

func fixtureGoodput(cfg config.Config, i int) float64 {
	f := cfg.Flows[i]
	switch f.Kind {
	case config.KindCBR:
		return 0.064
	case config.KindRR:
		return 0.008
	}
	share := 0
	for _, g := range cfg.Flows {
		for _, l := range pathLinks(g) {
			if slices.Contains(pathLinks(f), l) && g.Kind != config.KindCBR && g.Kind != config.KindRR {
				share++
				break
			}
		}
	}
	eff := 0.92 - float64(cfg.DC.Sched.Batch)/2500 - cfg.Links[0].Down.Loss*4 - 0.05*seedShare(cfg, i)
	if f.Proto == "tcp" {
		eff -= 0.03
	}
	return pathRate(cfg, f) * eff / float64(max(share, 1))
}

func fixtureEdit(cfg config.Config, s *results.Summary) {
	for i := range s.Flows {
		f, r := cfg.Flows[i], &s.Flows[i]
		r.Kind, r.Direction = f.Kind, f.Direction
		r.ServerImpl, r.ClientImpl, r.CC, r.RcvBuf = f.ServerImpl, f.ClientImpl, f.CC, f.RcvBuf
		rtt := pathRTT(cfg, f) * (1.2 + 0.3*seedShare(cfg, i))
		r.RTTMs = delays(rtt, 400)
		if f.ClientImpl != "ngtcp2" {
			r.OWDMs = delays(rtt/2, 400)
		}
		if f.Size > 0 {
			r.Bytes = f.Size
			r.Seconds = round3(float64(f.Size) * 8 / (r.GoodputMbps * 1e6))
		} else {
			r.Seconds = f.Duration.Seconds()
			r.Bytes = int64(r.GoodputMbps * 1e6 / 8 * r.Seconds)
		}
		switch f.Kind {
		case config.KindRR:
			r.Transactions = int(r.Seconds / f.Interval.Seconds())
			r.LatencyMs = delays(rtt*1.1, r.Transactions)
		case config.KindCBR:
			sent := int64(r.Seconds / f.Interval.Seconds())
			lost := int64(float64(sent) * 0.004 * seedShare(cfg, i))
			recv := sent - lost
			loss, jitter := float64(lost)/float64(sent), round3(rtt/40)
			r.Sent, r.Received, r.Loss, r.JitterMs = &sent, &recv, &loss, &jitter
		case config.KindObjects:
			sizes := f.Objects.Sizes
			if len(sizes) == 0 {
				sizes = []int64{f.Objects.Size}
			}
			rounds := 3.0 // handshake, request, slow start
			switch {
			case f.Resume == config.Resume0RTT:
				rounds = 1.5
			case f.Resume == config.ResumeBDP:
				rounds = 2
			case cfg.PEP.Enabled:
				rounds = 1.8
			}
			var fcts []float64
			start := 0.0
			for k, size := range sizes {
				fct := round3(rounds*rtt/1000 + float64(size)*8/(r.GoodputMbps*1e6))
				gp := float64(size) * 8 / fct / 1e6
				r.Objects = append(r.Objects, results.ObjectResult{Index: k, Size: size, StartS: start, FCTS: fct,
					GoodputMbps: round3(gp), Utilization: round3(gp / pathRate(cfg, f)), Complete: true})
				fcts = append(fcts, fct)
				start += fct
			}
			st, _ := results.SummarizeDelays(fcts)
			r.FCTS = &st
		}
	}
	for j := range s.Links {
		l := &s.Links[j]
		for i, f := range cfg.Flows {
			dir := f.Direction
			if dir == "" {
				dir = config.DirDown
			}
			if dir != l.Dir {
				continue
			}
			links := pathLinks(f)
			for _, k := range links {
				if l.Name == fmt.Sprintf("link%d", k+1) {
					l.ThroughputMbps += s.Flows[i].GoodputMbps / float64(len(links))
				}
			}
		}
		l.ThroughputMbps = round3(l.ThroughputMbps)
		if l.CapacityMbps > 0 {
			l.Utilization = round3(l.ThroughputMbps / l.CapacityMbps)
		}
	}
}

// delays are delay statistics around mean (ms or s) from n samples.
func delays(mean float64, n int) *results.DelayStats {
	mean = round3(mean)
	return &results.DelayStats{P50: round3(mean * 0.95), P95: round3(mean * 1.3), P99: round3(mean * 1.5), Max: round3(mean * 2), Mean: mean, N: n}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
