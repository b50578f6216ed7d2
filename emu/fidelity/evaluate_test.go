package fidelity

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

const (
	µs = time.Microsecond
	ms = time.Millisecond
)

// find returns the one check of the name and subject.
func find(t *testing.T, f Fidelity, name, subject string) Check {
	t.Helper()
	var out []Check
	for _, c := range f.Checks {
		if c.Name == name && c.Subject == subject {
			out = append(out, c)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d checks %s %s in %+v", len(out), name, subject, f.Checks)
	}
	return out[0]
}

func TestLateP99Limit(t *testing.T) {
	th := Defaults()
	for _, c := range []struct {
		delay, want time.Duration
	}{
		{0, 500 * µs},             // a loss-only line: the floor
		{5 * ms, 500 * µs},        // 5 % is 0.25 ms: the floor
		{10 * ms, 500 * µs},       // 5 % is exactly the floor
		{15 * ms, 750 * µs},       // 5 %
		{20 * ms, ms},             // 5 % is exactly the ceiling
		{300 * ms, ms},            // satellite: the ceiling
		{time.Hour, ms},           // never above the ceiling
		{-time.Second, 500 * µs},  // nonsense stays at the floor
		{12345 * µs, 617250 * ns}, // 5 % to the nanosecond
	} {
		if got := th.LateP99Limit(c.delay); got != c.want {
			t.Errorf("delay %v: limit %v, want %v", c.delay, got, c.want)
		}
	}
}

const ns = time.Nanosecond

// TestDelayLineEdges: at the limit is ok, a nanosecond over is degraded,
// for p99 and max; a line that released nothing is skipped.
func TestDelayLineEdges(t *testing.T) {
	for _, c := range []struct {
		name          string
		p99, max      time.Duration
		okP99, okMax  bool
		delay         time.Duration
		wantThreshold float64
	}{
		{"idle", 120 * µs, 900 * µs, true, true, 10 * ms, 0.5},
		{"p99 at limit", 500 * µs, ms, true, true, 10 * ms, 0.5},
		{"p99 just over", 500*µs + ns, ms, false, true, 10 * ms, 0.5},
		{"p99 relative", 740 * µs, ms, true, true, 15 * ms, 0.75},
		{"p99 over relative", 760 * µs, ms, false, true, 15 * ms, 0.75},
		{"max at limit", 100 * µs, 50 * ms, true, true, 10 * ms, 0.5},
		{"max just over", 100 * µs, 50*ms + ns, true, false, 10 * ms, 0.5},
		{"oversubscribed", 3 * ms, 150 * ms, false, false, 10 * ms, 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := Measurements{DelayLines: []DelayLine{{Direction: "link1.down", Delay: c.delay, LateP50: 20 * µs, LateP99: c.p99, LateMax: c.max, Released: 1000}}}
			f := Evaluate(m, Thresholds{})
			p99, top := find(t, f, CheckLateP99, "link1.down"), find(t, f, CheckLateMax, "link1.down")
			if p99.OK != c.okP99 || top.OK != c.okMax {
				t.Errorf("p99 ok %v (want %v), max ok %v (want %v): %+v %+v", p99.OK, c.okP99, top.OK, c.okMax, p99, top)
			}
			if p99.Threshold != c.wantThreshold || p99.Unit != UnitMs || top.Threshold != 50 {
				t.Errorf("thresholds %v / %v %s", p99.Threshold, top.Threshold, p99.Unit)
			}
			if want := c.okP99 && c.okMax; (f.Status == OK) != want {
				t.Errorf("status %s", f.Status)
			}
		})
	}
	f := Evaluate(Measurements{DelayLines: []DelayLine{{Direction: "link2.up", Delay: 10 * ms, LateP99: time.Second}}}, Thresholds{})
	if c := find(t, f, CheckLateP99, "link2.up"); !c.OK || !c.Skipped {
		t.Errorf("no releases: %+v, want skipped", c)
	}
}

func TestPlayerEdges(t *testing.T) {
	for _, c := range []struct {
		name string
		p99  time.Duration
		th   Thresholds
		ok   bool
	}{
		{"quiet", 330 * µs, Thresholds{}, true},
		{"at limit", 2 * ms, Thresholds{}, true},
		{"just over", 2*ms + ns, Thresholds{}, false},
		{"loaded, looser threshold", 2400 * µs, Thresholds{PlayerLate: 3 * ms}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := Measurements{Players: []Player{
				{Direction: "link1.down", Kind: PlayerRate, Changes: 3000, LateP50: 100 * µs, LateP99: c.p99, LateMax: 8 * ms},
				{Direction: "link1.down", Kind: PlayerImpairments, Changes: 3000, LateP50: 40 * µs, LateP99: 130 * µs, LateMax: 4 * ms},
			}}
			f := Evaluate(m, c.th)
			rate := find(t, f, CheckPlayerLate, "link1.down rate")
			if rate.OK != c.ok || rate.Unit != UnitMs || rate.Value != inMs(c.p99) {
				t.Errorf("rate %+v, want ok %v", rate, c.ok)
			}
			if imp := find(t, f, CheckPlayerLate, "link1.down impairments"); !imp.OK {
				t.Errorf("impairments %+v", imp)
			}
			if (f.Status == OK) != c.ok {
				t.Errorf("status %s", f.Status)
			}
			if !c.ok && !strings.Contains(rate.Detail, "link's rate followed the trace") {
				t.Errorf("detail %q does not name what came late", rate.Detail)
			}
		})
	}
}

func TestRateLimiterEdges(t *testing.T) {
	for _, c := range []struct {
		name      string
		sat       float64
		delivered float64
		ok, skip  bool
		detail    string
	}{
		{"working", 20, 19.99e6, true, false, "delivered 19.990 of 20.000 Mbit/s over 20.00 s saturated"},
		{"low edge", 20, 19.4e6, true, false, ""},
		{"starved", 20, 19.39e6, false, false, "starved: delivered 19.390 of 20.000 Mbit/s over 20.00 s saturated"},
		{"high edge", 20, 20.6e6, true, false, ""},
		{"too fast", 20, 20.61e6, false, false, "too fast"},
		{"short", 0.99, 10e6, true, true, "queue provably backlogged for 0.99 s, under the 1 s needed to judge the rate"},
		{"just long enough", 1, 10e6, false, false, "starved"},
		{"never saturated", 0, 0, true, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := Evaluate(Measurements{RateLimiters: []RateLimiter{{Direction: "link1.down", SaturatedSeconds: c.sat, DeliveredBps: c.delivered, ConfiguredBps: 20e6}}}, Thresholds{})
			r := find(t, f, CheckRate, "link1.down")
			if r.OK != c.ok || r.Skipped != c.skip || !strings.Contains(r.Detail, c.detail) {
				t.Errorf("%+v: want ok %v, skipped %v, detail with %q", r, c.ok, c.skip, c.detail)
			}
		})
	}
}

func TestThreadEdges(t *testing.T) {
	for _, c := range []struct {
		name                  string
		th                    Thread
		okWait, okMean, okCPU bool
	}{
		{"idle loop", Thread{Name: "l", CPU: 0.03, Wait: 0.0005, MeanWait: 500 * ns}, true, true, true},
		{"at limits", Thread{Name: "l", CPU: 0.8, Wait: 0.2, MeanWait: 50 * µs}, true, true, true},
		{"wait over", Thread{Name: "l", CPU: 0.1, Wait: 0.2001, MeanWait: 10 * µs}, false, true, true},
		{"mean over", Thread{Name: "l", CPU: 0.1, Wait: 0.001, MeanWait: 50*µs + ns}, true, false, true},
		{"cpu over", Thread{Name: "l", CPU: 0.81, Wait: 0.001, MeanWait: µs}, true, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := Evaluate(Measurements{Threads: []Thread{c.th}}, Thresholds{})
			w, m, cpu := find(t, f, CheckThreadWait, "l"), find(t, f, CheckThreadMeanWait, "l"), find(t, f, CheckThreadCPU, "l")
			if w.OK != c.okWait || m.OK != c.okMean || cpu.OK != c.okCPU {
				t.Errorf("wait %v mean %v cpu %v; want %v %v %v", w.OK, m.OK, cpu.OK, c.okWait, c.okMean, c.okCPU)
			}
			if w.Unit != UnitPercent || w.Threshold != 20 || m.Unit != UnitUs || m.Threshold != 50 || cpu.Threshold != 0.8 {
				t.Errorf("units or thresholds: %+v %+v %+v", w, m, cpu)
			}
		})
	}
}

func TestEndpointCPUBound(t *testing.T) {
	f := Evaluate(Measurements{Endpoints: []Endpoint{
		{Flow: "dc", Role: "server", CPU: 0.9},
		{Flow: "dc", Role: "client", CPU: 0.8999},
	}}, Thresholds{})
	s, c := find(t, f, CheckEndpointCPU, "dc server"), find(t, f, CheckEndpointCPU, "dc client")
	if s.OK || !strings.Contains(s.Detail, "flow dc is limited by the host, not the network") {
		t.Errorf("server at 0.9 of a core: %+v, want CPU-bound", s)
	}
	if !c.OK {
		t.Errorf("client under 0.9: %+v", c)
	}
	if f.Status != Degraded {
		t.Errorf("status %s", f.Status)
	}
}

// TestEndpointHeldBack: an endpoint that spent more of its runnable time
// waiting for a CPU than the limit makes the run degraded, though its own
// CPU stayed low — the overloaded host of four fast flows on two cores;
// one that hardly ran is not judged.
func TestEndpointHeldBack(t *testing.T) {
	f := Evaluate(Measurements{Endpoints: []Endpoint{
		{Flow: "f0", Role: "server", CPU: 0.14, Wait: 1.26}, // 90 % of its runnable time
		{Flow: "f0", Role: "client", CPU: 0.06, Wait: 0.34}, // 85 %, the limit
		{Flow: "f1", Role: "server", CPU: 0.01, Wait: 0.04}, // 80 %, but 4 % of the flow
	}}, Thresholds{})
	s, c, idle := find(t, f, CheckEndpointWait, "f0 server"), find(t, f, CheckEndpointWait, "f0 client"), find(t, f, CheckEndpointWait, "f1 server")
	if s.OK || math.Abs(s.Value-90) > 1e-9 || s.Threshold != 85 || !strings.Contains(s.Detail, "flow f0 is limited by the host") {
		t.Errorf("server waiting 90 %%: %+v, want held back", s)
	}
	if !c.OK || math.Abs(c.Value-85) > 1e-9 {
		t.Errorf("client waiting 85 %%, the limit: %+v", c)
	}
	if !idle.OK || math.Abs(idle.Value-80) > 1e-9 {
		t.Errorf("an endpoint waiting 4 %% of the flow: %+v, want not judged", idle)
	}
	if cpu := find(t, f, CheckEndpointCPU, "f0 server"); !cpu.OK || f.Status != Degraded {
		t.Errorf("CPU check %+v, status %s", cpu, f.Status)
	}
	if g := Evaluate(Measurements{Endpoints: []Endpoint{{Flow: "f0", Role: "server", CPU: 0.14, Wait: 1.26}}}, Thresholds{EndpointWait: 0.95}); g.Status != OK {
		t.Errorf("with fidelity.endpoint_wait 95 %%: %s", g.Status)
	}
}

func TestSteal(t *testing.T) {
	for _, c := range []struct {
		steal     float64
		known, ok bool
	}{{0.02, true, true}, {0.0201, true, false}, {0.5, false, true}} {
		f := Evaluate(Measurements{HostSteal: c.steal, HostStealKnown: c.known}, Thresholds{})
		s := find(t, f, CheckSteal, "host")
		if s.OK != c.ok || s.Skipped != !c.known {
			t.Errorf("steal %v known %v: %+v", c.steal, c.known, s)
		}
	}
}

func TestSoftirq(t *testing.T) {
	for _, c := range []struct {
		wait      time.Duration
		known, ok bool
	}{{5 * ms, true, true}, {5*ms + ns, true, false}, {time.Second, false, true}} {
		f := Evaluate(Measurements{SoftirqMeanWait: c.wait, SoftirqKnown: c.known}, Thresholds{})
		s := find(t, f, CheckSoftirq, "host")
		if s.OK != c.ok || s.Skipped != !c.known || s.Unit != UnitMs || s.Threshold != 5 {
			t.Errorf("softirq wait %v known %v: %+v", c.wait, c.known, s)
		}
	}
}

// TestThresholdsOverride: a field set replaces its default, the others
// keep theirs.
func TestThresholdsOverride(t *testing.T) {
	m := Measurements{
		DelayLines: []DelayLine{{Direction: "d", Delay: 10 * ms, LateP99: 800 * µs, LateMax: 60 * ms, Released: 1}},
		Endpoints:  []Endpoint{{Flow: "f", Role: "server", CPU: 0.95}},
	}
	if f := Evaluate(m, Thresholds{}); len(f.Failed()) != 3 {
		t.Fatalf("defaults: %d failed, want 3", len(f.Failed()))
	}
	f := Evaluate(m, Thresholds{LateFloor: ms, LateMax: 100 * ms, EndpointCPU: 2})
	if f.Status != OK {
		t.Errorf("overrides not applied: %+v", f.Failed())
	}
}

func TestJSON(t *testing.T) {
	f := Evaluate(Measurements{
		DelayLines: []DelayLine{{Direction: "link1.down", Delay: 10 * ms, LateP50: 20 * µs, LateP99: 2 * ms, LateMax: 3 * ms, Released: 10}},
	}, Thresholds{})
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Status string `json:"status"`
		Checks []struct {
			Name, Subject, Unit, Detail string
			Value, Threshold            float64
			OK                          bool `json:"ok"`
			Skipped                     bool `json:"skipped"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Status != "degraded" || len(back.Checks) != 4 || back.Checks[0].Name != CheckLateP99 || back.Checks[0].Value != 2 || back.Checks[0].OK {
		t.Errorf("round trip: %s", b)
	}
	if strings.Contains(string(b), `"skipped":false`) {
		t.Errorf("skipped false is written: %s", b)
	}
}

// TestBatchPathLosses: any PDU the batch path lost outside the links (a
// full socket, a refused TUN write) degrades the run; none is OK.
func TestBatchPathLosses(t *testing.T) {
	for _, c := range []struct {
		b  BatchPath
		ok bool
	}{
		{BatchPath{Direction: "down"}, true},
		{BatchPath{Direction: "down", SocketDrops: 1}, false},
		{BatchPath{Direction: "down", TUNRefused: 3}, false},
	} {
		f := Evaluate(Measurements{BatchPaths: []BatchPath{c.b}}, Thresholds{})
		got := find(t, f, CheckBatchLost, "pdcp down")
		if got.OK != c.ok || got.Value != float64(c.b.SocketDrops+c.b.TUNRefused) || (f.Status == OK) != c.ok {
			t.Errorf("%+v: %+v, status %v", c.b, got, f.Status)
		}
	}
}

// TestBatchPathSocketWait: the worst second's wait in the receiving
// gateway's socket is judged as a delay line's lateness on the shorter
// link: up to 5 % of its delay, within 0.5 to 1 ms; no traffic is
// skipped.
func TestBatchPathSocketWait(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	for _, c := range []struct {
		b        BatchPath
		ok, skip bool
		limitMs  float64
		inDetail string
	}{
		{BatchPath{Direction: "down", Delay: ms(5)}, true, true, 0.5, "no second"},
		{BatchPath{Direction: "down", Seconds: 60, WaitMax: ms(0.4), WaitMean: ms(0.1), Delay: ms(5)}, true, false, 0.5, "0.400 ms in the receiving gateway's socket in the worst of 60 seconds (0.100 ms"},
		{BatchPath{Direction: "down", Seconds: 60, WaitMax: ms(0.6), Delay: ms(5)}, false, false, 0.5, "the floor"},
		{BatchPath{Direction: "down", Seconds: 60, WaitMax: ms(0.6), Delay: ms(15)}, true, false, 0.75, "worst of 60"},
		{BatchPath{Direction: "up", Seconds: 60, WaitMax: ms(13), WaitMean: ms(4), Delay: ms(30)}, false, false, 1, "the ceiling"},
	} {
		f := Evaluate(Measurements{BatchPaths: []BatchPath{c.b}}, Thresholds{})
		got := find(t, f, CheckSocketWait, "pdcp "+c.b.Direction)
		if got.OK != c.ok || got.Skipped != c.skip || math.Abs(got.Threshold-c.limitMs) > 1e-9 || (f.Status == OK) != c.ok {
			t.Errorf("%+v: %+v, status %v", c.b, got, f.Status)
		}
		if !strings.Contains(got.Detail, c.inDetail) {
			t.Errorf("%+v: detail %q lacks %q", c.b, got.Detail, c.inDetail)
		}
	}
}
