package sweep

import (
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

func resolved(t *testing.T, scenario string, kv ...string) config.Config {
	t.Helper()
	var sets []config.Setting
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		sets = append(sets, config.Setting{Key: k, Value: v})
	}
	c, err := config.Resolve(scenario, sets)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// seconds of a transfer of size bytes at rate bit/s at FlowEfficiency.
func transfer(size int64, rate float64) time.Duration {
	return time.Duration(float64(size) * 8 / (rate * FlowEfficiency) * float64(time.Second))
}

func near(a, b time.Duration) bool { return (a - b).Abs() < time.Millisecond }

func TestEstimateRun(t *testing.T) {
	base := []string{"link.trace=none", "flow.size=20MB"}
	with := func(kv ...string) []string { return append(append([]string(nil), base...), kv...) }
	size := resolved(t, "throughput", base...).Flows[0].Size
	for _, tc := range []struct {
		name     string
		scenario string
		sets     []string
		want     time.Duration
	}{
		{"DC over 2 × 20 Mbit/s", "throughput", base, RunOverhead + transfer(size, 40e6)},
		{"split 9:1 fills link1 first", "throughput", with("dc.split=9:1"), RunOverhead + transfer(size, 20e6/0.9)},
		{"split 1:0 is link1", "throughput", with("dc.split=1:0"), RunOverhead + transfer(size, 20e6)},
		{"duplication: the slower link", "throughput", with("dc.scheduler=duplicate", "link2.rate=10mbit"), RunOverhead + transfer(size, 10e6)},
		{"no DC: link1", "throughput", with("dc.enabled=false"), RunOverhead + transfer(size, 20e6)},
		{"adaptive: both links", "throughput", with("dc.scheduler=adaptive", "link.bw_ratio=3:1"), RunOverhead + transfer(size, 40e6)},
		{"a late start", "throughput", with("flow.start=2s"), RunOverhead + 2*time.Second + transfer(size, 40e6)},
		{"fairness: the flows' duration", "fairness", []string{"link.trace=none", "flow.duration=60s"}, RunOverhead + 60*time.Second},
		{"fairness, one flow late", "fairness", []string{"link.trace=none", "flow.duration=60s", "flows.2.start=5s"}, RunOverhead + 65*time.Second},
		{"an upload: the uplinks", "throughput", with("flow.direction=up", "link.up.rate=5mbit"), RunOverhead + transfer(size, 10e6)},
		{"cbr datagrams counted", "throughput", []string{"link.trace=none", "flow.kind=cbr", "flow.count=500", "flow.interval=10ms"}, RunOverhead + 5*time.Second},
		{"rr transactions back to back", "throughput", []string{"link.trace=none", "flow.kind=rr", "flow.count=100", "link.delay=10ms"}, RunOverhead + 2*time.Second},
	} {
		got := EstimateRun(resolved(t, tc.scenario, tc.sets...))
		if !near(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// A trace: its mean rate (StaticA's is well below 20 Mbit/s).
	lte := EstimateRun(resolved(t, "throughput", "link.trace=StaticA", "flow.size=20MB"))
	if flat := EstimateRun(resolved(t, "throughput", base...)); lte < 2*flat {
		t.Errorf("20 MB over StaticA %v, over 2 × 20 Mbit/s %v", lte, flat)
	}
}

func TestMakespan(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		slots        int
		busy, queued []time.Duration
		want         time.Duration
	}{
		{1, nil, []time.Duration{3 * s, s, s}, 5 * s},
		{2, nil, []time.Duration{3 * s, s, s, s}, 3 * s},
		{3, nil, []time.Duration{s}, s},
		{2, []time.Duration{4 * s}, []time.Duration{s, s}, 4 * s},
		{1, []time.Duration{2 * s, 2 * s}, nil, 2 * s}, // more running than slots (auto lowered)
		{0, nil, []time.Duration{s, s}, 2 * s},
	} {
		if got := makespan(tc.slots, tc.busy, tc.queued); got != tc.want {
			t.Errorf("makespan(%d, %v, %v) = %v, want %v", tc.slots, tc.busy, tc.queued, got, tc.want)
		}
	}
}

func TestEstimateWall(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2,
		Settings: []config.Setting{{Key: "link.trace", Value: "none"}, {Key: "flow.size", Value: "20MB"}}})
	one := EstimateRun(p.Points[0].Config)
	for _, tc := range []struct {
		s    Schedule
		want time.Duration
	}{
		{Schedule{}, 4 * one},
		{Schedule{Jobs: 2}, 2 * one},
		{Schedule{Jobs: 4}, one},
		{Schedule{Jobs: 3, Calibrate: true}, 2 * one},
		{Schedule{Jobs: 1, Calibrate: true}, 4 * one},
	} {
		if got := EstimateWall(p, p.Runs, tc.s); !near(got, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.s, got, tc.want)
		}
	}
	// A point without a resolved configuration (a plan read back from
	// plan.json) counts the overhead alone.
	bare := *p
	bare.Points = []results.Point{{ID: "p01"}, {ID: "p02"}}
	if got := EstimateWall(&bare, p.Runs, Schedule{}); got != 4*RunOverhead {
		t.Errorf("bare plan: %v", got)
	}
	if s := WallTimes(p, p.Runs, 1); !strings.HasPrefix(s, round(4*one).String()+" with 1 job, ") {
		t.Errorf("WallTimes: %s", s)
	}
}
