package sweep

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

func TestWorkloadMetrics(t *testing.T) {
	jit, loss := 0.4, 0.01
	s := &results.Summary{Flows: []results.FlowResult{
		{Name: "bulk", GoodputMbps: 30, FlowWorkload: results.FlowWorkload{Kind: "bulk"}},
		{Name: "rr", GoodputMbps: 0.01, FlowWorkload: results.FlowWorkload{Kind: "rr", LatencyMs: &results.DelayStats{P50: 21, P95: 90, P99: 120, N: 9}}},
		{Name: "voip", OWDMs: &results.DelayStats{P50: 10, P95: 30, P99: 31, N: 9}, FlowWorkload: results.FlowWorkload{Kind: "cbr", JitterMs: &jit, Loss: &loss}},
		{Name: "web", FlowWorkload: results.FlowWorkload{Kind: "objects", FCTS: &results.DelayStats{P50: 1, P95: 3, N: 3},
			Objects: []results.ObjectResult{{Size: 1e6, FCTS: 1, Utilization: 0.2, Complete: true}, {Size: 1e6, FCTS: 2, Utilization: 0.1, Complete: true}, {Size: 100e6, FCTS: 20, Utilization: 0.8, Complete: true}, {Size: 100e6, FCTS: 50}}}},
	}}
	m := RunMetrics(s)
	for k, want := range map[string]float64{
		"flow.rr.latency_p95_ms": 90, "flow.rr.latency_p99_ms": 120, "flow.voip.owd_p50_ms": 10, "flow.voip.jitter_ms": 0.4, "flow.voip.loss": 0.01,
		"flow.web.fct_p95_s": 3, "flow.web.fct_s.1MB": 1.5, "flow.web.utilization.1MB": 0.15, "flow.web.fct_s.100MB": 20, "flow.web.utilization.100MB": 0.8,
	} {
		if got, ok := m[k]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v (%v), want %v", k, got, ok, want)
		}
	}
	for m, want := range map[string]string{
		"flow.rr.latency_p95_ms":     "p95 transaction latency of rr (ms)",
		"flow.voip.owd_p99_ms":       "p99 one-way delay of voip (ms)",
		"flow.web.fct_s.500kB":       "mean completion time of 500kB objects of web (s)",
		"flow.web.utilization.100MB": "utilization by 100MB objects of web",
		"flow.voip.loss":             "datagrams lost by voip (fraction)",
	} {
		if got := metricLabel(m); got != want {
			t.Errorf("label of %s = %q, want %q", m, got, want)
		}
	}
}

// workRunner writes runs of a bulk and an rr flow whose rr p95 latency
// falls, and bulk goodput with it, when flow 1 has its own scheduler.
func workRunner(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	p95, bulk := 400.0, 38.0
	if cfg.Flows[1].Scheduler == "smallest-delay" {
		p95, bulk = 60, 30
	}
	p95 += float64(cfg.Seed % 7)
	s := &results.Summary{Run: filepath.Base(out), Scenario: cfg.Scenario, Status: results.StatusOK, Seed: cfg.Seed,
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Config: config.Values(&cfg), JFI: 1,
		Flows: []results.FlowResult{
			{Name: cfg.Flows[0].Name, Path: "dc", GoodputMbps: bulk, Complete: true, FlowWorkload: results.FlowWorkload{Kind: "bulk", Direction: "down"}},
			{Name: cfg.Flows[1].Name, Path: "dc", GoodputMbps: 0.01, Complete: true, FlowWorkload: results.FlowWorkload{Kind: "rr", Direction: "down", Transactions: 100,
				LatencyMs: &results.DelayStats{P50: 21, P95: p95, P99: p95 + 10, Max: p95 + 20, N: 100}}},
		}}
	b, _ := json.Marshal(s)
	return s, os.WriteFile(filepath.Join(out, "summary.json"), b, 0o644)
}

func TestWorkloadSweepTableAndFigures(t *testing.T) {
	p := testPlan(t, Spec{Scenario: "throughput", Settings: mustSettings(t, "flows.count=2", "flows.0.name=bulk", "flows.1.name=rr", "flows.1.kind=rr", "flows.1.count=100"),
		Axes: axes(t, "flows.1.scheduler=batch,smallest-delay"), Repeat: 2})
	dir := prepared(t, p)
	if _, err := Execute(context.Background(), dir, p, Options{Runner: workRunner}); err != nil {
		t.Fatal(err)
	}
	if _, err := Finish(dir, AggregateOptions{}); err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join(dir, results.CSVFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.SplitN(string(csv), "\n", 2)[0], "flow.rr.latency_p95_ms_mean,flow.rr.latency_p95_ms_sd,flow.rr.latency_p95_ms_ci95") {
		t.Errorf("sweep.csv header lacks the rr latency: %s", strings.SplitN(string(csv), "\n", 2)[0])
	}
	for _, name := range []string{"tradeoff-bulk-rr.latency_p95_ms", "flow.rr.latency_p95_ms-flows.1.scheduler"} {
		if b, err := os.ReadFile(filepath.Join(dir, results.FiguresDir, name+".svg")); err != nil || !strings.Contains(string(b), "<svg") {
			t.Errorf("figure %s: %v", name, err)
		}
	}
}

func mustSettings(t *testing.T, kv ...string) []config.Setting {
	t.Helper()
	s, err := config.ParseSettings(kv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestUtilizationCountsUploads(t *testing.T) {
	s := &results.Summary{Config: map[string]string{"dc.enabled": "true", "dc.uplink": "split"},
		Flows: []results.FlowResult{
			{Name: "down", Path: "dc", GoodputMbps: 36, FlowWorkload: results.FlowWorkload{Kind: "bulk", Direction: "down"}},
			{Name: "up", Path: "dc", GoodputMbps: 36, FlowWorkload: results.FlowWorkload{Kind: "bulk", Direction: "up"}},
		},
		Links: []results.LinkResult{{Name: "link1", Dir: "down", CapacityMbps: 20}, {Name: "link1", Dir: "up", CapacityMbps: 20},
			{Name: "link2", Dir: "down", CapacityMbps: 20}, {Name: "link2", Dir: "up", CapacityMbps: 20}}}
	if u := RunMetrics(s)[results.MetricUtilization]; math.Abs(u-0.9) > 1e-9 {
		t.Errorf("72 Mbit/s over 2 × 20 down and 2 × 20 up: utilization %v, want 0.9", u)
	}
}

// TestTransferMetrics: one flow that moves a known amount gives its mean
// completion time and used bandwidth, as objects or as a sized download;
// an unbounded download and a run of two flows give none.
func TestTransferMetrics(t *testing.T) {
	objects := &results.Summary{Flows: []results.FlowResult{{FlowWorkload: results.FlowWorkload{Kind: config.KindObjects, Objects: []results.ObjectResult{
		{FCTS: 3, Utilization: 0.2, Complete: true}, {FCTS: 5, Utilization: 0.4, Complete: true}, {FCTS: 99, Complete: false}}}}}}
	m := map[string]float64{}
	addTransferMetrics(m, objects)
	if m[results.MetricTransferTime] != 4 || math.Abs(m[results.MetricTransferUtilization]-0.3) > 1e-12 {
		t.Errorf("objects: %v", m)
	}
	bulk := &results.Summary{Config: map[string]string{"flows.0.size": "10MB"},
		Flows: []results.FlowResult{{FlowWorkload: results.FlowWorkload{Kind: config.KindBulk}, Bytes: 10e6, Seconds: 8, Complete: true}}}
	m = map[string]float64{results.MetricUtilization: 0.2}
	addTransferMetrics(m, bulk)
	if m[results.MetricTransferTime] != 8 || m[results.MetricTransferUtilization] != 0.2 {
		t.Errorf("sized download: %v", m)
	}
	bulk.Config["flows.0.size"] = "0B"
	m = map[string]float64{}
	addTransferMetrics(m, bulk)
	two := &results.Summary{Flows: append(objects.Flows, objects.Flows...)}
	addTransferMetrics(m, two)
	if len(m) != 0 {
		t.Errorf("unbounded download or two flows: %v", m)
	}
}
