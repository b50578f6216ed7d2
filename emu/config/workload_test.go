package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/workload"
	"github.com/dc-emu/emu/internal/emutest"
)

func TestWorkloadKeysResolve(t *testing.T) {
	c, err := Resolve("throughput", settings(t,
		"flows.count=4",
		"flows.1.kind=rr", "flows.1.request=200", "flows.1.response=1kB", "flows.1.interval=100ms", "flows.1.count=50",
		"flows.2.kind=cbr", "flows.2.packet=160", "flows.2.duration=10s",
		"flows.3.kind=objects", "flows.3.objects=500kB,1MB", "flows.3.reuse=false", "flows.3.resume=0rtt",
		"flows.0.direction=up", "flows.1.scheduler=smallest-delay",
	))
	if err != nil {
		t.Fatal(err)
	}
	if f := c.Flows[1]; f.Kind != KindRR || f.Request != 200 || f.Response != 1000 || f.Interval != 100*time.Millisecond || f.Count != 50 || !f.Steered() {
		t.Errorf("rr flow: %+v", f.Workload)
	}
	if f := c.Flows[2]; f.Kind != KindCBR || f.Proto != ProtoUDP || f.ServerImpl != "go" || f.CBRInterval() != workload.DefaultCBRInterval {
		t.Errorf("cbr flow: proto %s impl %s, %+v", f.Proto, f.ServerImpl, f.Workload)
	}
	if f := c.Flows[3]; f.Kind != KindObjects || f.Reuse || f.Resume != Resume0RTT {
		t.Errorf("objects flow: %+v", f.Workload)
	}
	if c.Flows[0].Direction != DirUp || c.Flows[0].Kind != KindBulk {
		t.Errorf("flow 0: %+v", c.Flows[0].Workload)
	}
	vals := Values(&c)
	for k, want := range map[string]string{"flows.2.kind": "cbr", "flows.2.proto": "udp", "flows.1.response": "1kB", "flows.3.objects": "500kB,1MB", "flows.0.kind": "bulk"} {
		if vals[k] != want {
			t.Errorf("%s = %q, want %q", k, vals[k], want)
		}
	}
	if got := (Workload{Packet: 1250, Rate: 1e6}).CBRInterval(); got != 10*time.Millisecond {
		t.Errorf("1250 B at 1 Mbit/s: interval %v, want 10ms", got)
	}
}

func TestWorkloadBadInputNamesKey(t *testing.T) {
	for _, tc := range []struct {
		set  []string
		want string
	}{
		{[]string{"flow.kind=stream"}, `flows.0.kind: want bulk, rr, cbr or objects (got "stream")`},
		{[]string{"flow.kind=cbr", "flow.proto=tcp", "flow.duration=1s"}, "flows.0.kind: cbr sends plain UDP datagrams, not tcp"},
		{[]string{"flow.kind=rr", "flow.proto=udp", "flow.count=1"}, "flows.0.proto: udp carries cbr flows only"},
		{[]string{"flow.kind=rr", "flow.direction=up", "flow.count=3"}, "flows.0.direction: up applies to bulk and cbr"},
		{[]string{"flow.direction=sideways"}, `flows.0.direction: want down or up (got "sideways")`},
		{[]string{"flow.kind=rr"}, "flows.0.count: an rr flow needs a count or a duration"},
		{[]string{"flow.kind=rr", "flow.count=1", "flow.request=2GB"}, "flows.0.request: 2GB out of range"},
		{[]string{"flow.kind=cbr", "flow.duration=1s", "flow.packet=10"}, "flows.0.packet: 10 B out of range"},
		{[]string{"flow.kind=cbr", "flow.duration=1s", "flow.packet=1500"}, "flows.0.packet: 1500 B out of range"},
		{[]string{"flow.kind=cbr", "flow.duration=1s", "flow.rate=1mbit", "flow.interval=20ms"}, "flows.0.rate: give a rate or an interval, not both"},
		{[]string{"flow.kind=cbr", "flow.duration=1s", "flow.rate=10gbit"}, "flows.0.rate: 160 B datagrams every 128ns: out of range"},
		{[]string{"flow.kind=objects", "flow.objects=1MB,0"}, `flow.objects=1MB,0: object 2 of the list: "0": an object has 1 B to 1TB`},
		{[]string{"flow.kind=objects"}, "flows.0.objects: no objects (want a list"},
		{[]string{"flow.kind=objects", "flow.objects=exp:1MB"}, "flows.0.count: objects drawn from exp need a count or the flow's duration"},
		{[]string{"flow.kind=objects", "flow.objects=weibull:1MB"}, `unknown distribution "weibull"`},
		{[]string{"flow.kind=objects", "flow.objects=1MB", "flow.arrivals=poisson:0s"}, `flow.arrivals=poisson:0s: "poisson:0s": mean gap 0s out of range`},
		{[]string{"flow.kind=objects", "flow.objects=1MB", "flow.resume=0rtt", "flow.proto=tcp"}, "flows.0.resume: 0rtt is QUIC's"},
		{[]string{"flow.resume=1rtt"}, "flows.0.resume: applies to rr and objects flows"},
		{[]string{"flow.kind=objects", "flow.objects=1MB", "flow.resume=2rtt"}, `flows.0.resume: want off, 1rtt, 0rtt or bdp (got "2rtt")`},
		{[]string{"flow.kind=objects", "flow.objects=1MB", "flow.resume=bdp", "flow.proto=quic"}, "flows.0.resume: bdp starts a kernel TCP connection"},
		{[]string{"flow.kind=objects", "flow.objects=1MB", "flow.resume=bdp", "flow.proto=quic"}, "quic-go has no API to seed a connection's congestion window or RTT"},
		{[]string{"flow.resume=bdp", "flow.proto=tcp"}, "flows.0.resume: applies to rr and objects flows"},
		{[]string{"flow.kind=objects", "flow.objects=1MB", "flow.proto=tcp", "flow.resume_check=true"}, "flows.0.resume_check: checks a resumed path state: set flows.0.resume=bdp (resume is off)"},
		{[]string{"flow.kind=objects", "flow.objects=1MB", "flow.proto=tcp", "flow.resume=1rtt", "flow.resume_check=true"}, "flows.0.resume_check: checks a resumed path state"},
		{[]string{"flow.kind=objects", "flow.objects=1MB", "flow.server_impl=ngtcp2"}, "flows.0.kind: objects (resume off) needs emu's own endpoints"},
		{[]string{"flow.direction=up", "flow.client_impl=ngtcp2"}, "flows.0.kind: bulk up (resume off) needs emu's own endpoints"},
		{[]string{"flow.scheduler=sometimes"}, `flows.0.scheduler: unknown scheduler (want one of batch, duplicate, weighted, smallest-delay, active-standby, adaptive, credit) (got "sometimes")`},
		{[]string{"flow.path=link1", "flow.scheduler=batch"}, "flows.0.scheduler: only DC flows cross the PDCP proxies (path link1"},
		{[]string{"flow.batch=-3"}, "flows.0.batch: must be at least 1 (got -3)"},
		{[]string{"dc.batch=0", "flow.split=2:1"}, "dc.batch: must be at least 1 (got 0)"},
		{[]string{"flow.active=link3"}, `flow.active=link3: want link1 or link2 (got "link3")`},
		{[]string{"flow.path=mptcp", "flow.proto=tcp", "flow.direction=up"}, "flows.0.kind: over path mptcp emu runs bulk downloads only"},
	} {
		_, err := Resolve("throughput", settings(t, tc.set...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want it to contain %q", tc.set, err, tc.want)
		}
	}
}

func TestResumeBDPResolves(t *testing.T) {
	for _, set := range [][]string{
		{"flow.kind=objects", "flow.objects=1MB", "flow.proto=tcp", "flow.resume=bdp"},
		{"flow.kind=objects", "flow.objects=1MB", "flow.proto=tcp", "flow.resume=bdp", "flow.resume_check=true"},
		{"flow.kind=rr", "flow.count=3", "flow.proto=tcp", "flow.resume=bdp"},
	} {
		c, err := Resolve("throughput", settings(t, set...))
		if err != nil {
			t.Errorf("%v: %v", set, err)
			continue
		}
		if w := c.Flows[0].Workload; w.Resume != ResumeBDP || w.ResumeCheck != slices.Contains(set, "flow.resume_check=true") {
			t.Errorf("%v: resume %q, check %v", set, w.Resume, w.ResumeCheck)
		}
	}
}

func FuzzParseObjects(f *testing.F) {
	emutest.AddSeeds[string](f, "500kB,1MB", "fixed:1MB", "exp:1MB", "lognormal:1MB:1.5", "csv:x.csv", "a.csv", ",", "lognormal::")
	f.Fuzz(func(t *testing.T, s string) {
		o, err := workload.ParseObjects(s)
		if err != nil {
			return
		}
		for _, n := range append(o.Sizes, o.Size) {
			if n < 0 || n > workload.MaxObjectSize {
				t.Fatalf("%q: size %d out of range", s, n)
			}
		}
		if o.Dist == workload.DistList && len(o.Sizes) == 0 {
			t.Fatalf("%q: an empty list parsed", s)
		}
	})
}

func FuzzParseSizesCSV(f *testing.F) {
	emutest.AddSeeds[[]byte](f, "size\n1\n2kB\n", "bytes,x\n\"5\"\n", "#\n\n", "1e3\n-1\n")
	f.Fuzz(func(t *testing.T, b []byte) {
		sizes, err := workload.ParseSizesCSV("f.csv", b)
		if err != nil {
			var se *workload.SizesError
			if !errors.As(err, &se) || se.Line < 0 {
				t.Fatalf("error %v is not a located *workload.SizesError", err)
			}
			return
		}
		for _, n := range sizes {
			if n < 1 || n > workload.MaxObjectSize {
				t.Fatalf("size %d out of range", n)
			}
		}
	})
}

func FuzzParseArrivals(f *testing.F) {
	emutest.AddSeeds[string](f, "seq", "poisson:1s", "poisson:3/s", "poisson:NaN/s", "poisson:+Inf/s")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := workload.ParseArrivals(s)
		if err == nil && a.Kind == workload.ArrivalsPoisson && (a.Mean < time.Millisecond || a.Mean > time.Hour) {
			t.Fatalf("%q: mean %v out of range", s, a.Mean)
		}
	})
}
