package sweep

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
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
		// A download adds its handshake and slow start: at the default
		// 20 ms RTT and these rates, one to three round trips.
		got := EstimateRun(resolved(t, tc.scenario, tc.sets...))
		if ramp := got - tc.want; ramp < -time.Millisecond || ramp > 65*time.Millisecond ||
			(strings.Contains(tc.name, "Mbit") && ramp < 20*time.Millisecond) {
			t.Errorf("%s: %v, want %v and a ramp of at most 3 round trips", tc.name, got, tc.want)
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
	one := EstimateRun(pointConfig(t, p, p.Points[0].ID))
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
	// A plan read back from plan.json resolves its points again and
	// estimates as the one NewPlan made; a point whose settings do not
	// resolve counts the overhead alone.
	back := *p
	back.Points = []results.Point{{ID: "p01", Settings: []string{"dc.batch=25"}}, {ID: "p02", Settings: []string{"dc.batch=100"}}}
	if got, want := EstimateWall(&back, p.Runs, Schedule{}), EstimateWall(p, p.Runs, Schedule{}); got != want {
		t.Errorf("plan read back: %v, want %v", got, want)
	}
	back.Points = []results.Point{{ID: "p01", Settings: []string{"no.such=1"}}, {ID: "p02", Settings: []string{"no.such=1"}}}
	if got := EstimateWall(&back, p.Runs, Schedule{}); got != 4*RunOverhead {
		t.Errorf("points that do not resolve: %v, want %v", got, 4*RunOverhead)
	}
	if s := WallTimes(p, p.Runs, 1); !strings.HasPrefix(s, round(4*one).String()+" with 1 job, ") {
		t.Errorf("WallTimes: %s", s)
	}
}

// TestLossBoundRate checks Padhye's model against figures worked by
// hand, and the loss preset's shape: rate falls with loss, a longer round
// trip lowers it, no loss leaves it unbounded.
func TestLossBoundRate(t *testing.T) {
	// 1 % loss, 20 ms, 1448 B, b = 2, T0 = 200 ms:
	// 11584 / (0.02·√(0.04/3) + 0.2·min(1, 3·√0.0075)·0.01·1.0032)
	// = 11584 / (0.0023094 + 0.00052127) = 4.0923 Mbit/s.
	if got := lossBoundRate(1448, 20*time.Millisecond, 0.01); math.Abs(got-4.0923e6) > 1e3 {
		t.Errorf("1 %% loss, 20 ms: %.0f bit/s, want 4.0923 Mbit/s", got)
	}
	if got := lossBoundRate(1448, 20*time.Millisecond, 0); !math.IsInf(got, 1) {
		t.Errorf("no loss: %v", got)
	}
	prev := math.Inf(1)
	for _, p := range []float64{0.0008, 0.005, 0.01, 0.02, 0.05} {
		r := lossBoundRate(1200, 20*time.Millisecond, p)
		if r >= prev || lossBoundRate(1200, 200*time.Millisecond, p) >= r {
			t.Errorf("loss %v: %.0f bit/s, after %.0f", p, r, prev)
		}
		prev = r
	}
}

// TestEstimateRunBounds: loss and a long round trip make a download
// take longer than the links' capacity says, and the loss of the links a
// flow does not use does not count.
func TestEstimateRunBounds(t *testing.T) {
	base := []string{"link.trace=none", "flow.size=20MB"}
	est := func(kv ...string) time.Duration {
		return EstimateRun(resolved(t, "throughput", append(base, kv...)...))
	}
	free := est()
	// TCP at 1 % loss on a 20 ms RTT: 20 MB at 4.09 Mbit/s, 39 s.
	if got := est("flow.proto=tcp", "flow.cc=reno", "link.loss=1%"); got < 38*time.Second || got > 41*time.Second {
		t.Errorf("TCP, 1 %% loss: %v, want about 39 s", got)
	}
	if got := est("link2.loss=5%", "dc.split=1:0"); !near(got, est("dc.split=1:0")) {
		t.Errorf("loss on link2, which the flow does not use: %v", got)
	}
	if got := est("link2.loss=5%", "dc.scheduler=duplicate"); !near(got, est("dc.scheduler=duplicate")) {
		t.Errorf("loss on one link under duplication: %v", got)
	}
	// 200 ms one-way delays: slow start takes about 6 round trips, 1.2 s.
	if got := est("link.delay=100ms") - free; got < time.Second || got > 2*time.Second {
		t.Errorf("a 200 ms RTT adds %v, want 1-2 s of slow start", got)
	}
}

// TestElapsedIn: the runs a directory holds scale the model by how long
// they took; an empty one leaves it as it is.
func TestElapsedIn(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,100"), Repeat: 2,
		Settings: []config.Setting{{Key: "link.trace", Value: "none"}, {Key: "flow.size", Value: "20MB"}}})
	dir := prepared(t, p)
	if e := ElapsedIn(dir, p); e.Runs != 0 || e.Scale(time.Minute) != time.Minute {
		t.Errorf("nothing done: %+v", e)
	}
	// Every run takes twice what the model expects.
	one := EstimateRun(pointConfig(t, p, p.Points[0].ID))
	f := &sweeptest.Runner{DurationS: (2*one - RunOverhead).Seconds()}
	if _, err := Execute(context.Background(), dir, p, Options{Runner: f.Run, Shard: Shard{1, 2}}); err != nil {
		t.Fatal(err)
	}
	e := ElapsedIn(dir, p)
	if got := e.Scale(time.Minute); e.Runs != 2 || (got-2*time.Minute).Abs() > time.Second {
		t.Errorf("2 runs at twice the model: %+v scales a minute to %v", e, got)
	}
}

// TestEstimateObjects: an objects flow takes, per object, its set-up and
// slow start and its bytes at the path's rate, plus a first connection
// when it resumes.
func TestEstimateObjects(t *testing.T) {
	base := []string{"link.trace=none", "dc.enabled=false", "flow.path=link1", "link1.rate=1mbit", "link1.delay=250ms",
		"flow.kind=objects", "flow.reuse=false"}
	with := func(kv ...string) config.Config {
		return resolved(t, "throughput", append(append([]string(nil), base...), kv...)...)
	}
	rtt := 500 * time.Millisecond
	one := EstimateRun(with("flow.objects=100MB"))
	if want := RunOverhead + transfer(100e6, 1e6) + 2*rtt; one < want || one > want+10*rtt {
		t.Errorf("100 MB at 1 Mbit/s and 500 ms: %v, want %v plus a slow start", one, want)
	}
	if three := EstimateRun(with("flow.objects=fixed:1MB", "flow.count=3")); three-RunOverhead < 3*(transfer(1e6, 1e6)+2*rtt) {
		t.Errorf("three 1 MB objects: %v", three)
	}
	if off, r := EstimateRun(with("flow.objects=1MB")), EstimateRun(with("flow.objects=1MB", "flow.resume=0rtt")); r-off < 2*rtt {
		t.Errorf("resumed %v, not a first connection more than %v", r, off)
	}
}
