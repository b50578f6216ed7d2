package fidelity

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// sample is a DC run's measurements: two delay lines (one late), two
// rate limiters (one never saturated), two packet threads, a CPU-bound
// server, and the host.
func sample() Measurements {
	return Measurements{
		DelayLines: []DelayLine{
			{Direction: "link1.down", Delay: 10 * ms, LateP50: 18 * µs, LateP99: 160 * µs, LateMax: 2816 * µs, Released: 29966},
			{Direction: "link2.down", Delay: 30 * ms, LateP50: 14 * µs, LateP99: 3584 * µs, LateMax: 147456 * µs, Released: 30112},
		},
		RateLimiters: []RateLimiter{
			{Direction: "link1.down", SaturatedSeconds: 24.3, DeliveredBps: 19.994e6, ConfiguredBps: 20e6},
			{Direction: "link1.up", SaturatedSeconds: 0},
		},
		Threads: []Thread{
			{Name: "delay link1.down", CPU: 0.034, Wait: 0.00049, MeanWait: 471 * ns},
			{Name: "pdcp tx", CPU: 0.12, Wait: 0.0197, MeanWait: 60340 * ns},
		},
		Endpoints: []Endpoint{
			{Flow: "dc", Role: "server", CPU: 0.97, Wait: 0.031},
			{Flow: "dc", Role: "client", CPU: 0.41, Wait: 0.012},
		},
		HostSteal: 0.0008, HostStealKnown: true,
		SoftirqMeanWait: 50163 * µs, SoftirqKnown: true,
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update if the change is meant):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func TestTextGolden(t *testing.T) {
	f := Evaluate(sample(), Thresholds{})
	for _, c := range []struct {
		name string
		f    Fidelity
		all  bool
	}{
		{"degraded.txt", f, false},
		{"degraded-all.txt", f, true},
		{"ok.txt", Evaluate(Measurements{DelayLines: sample().DelayLines[:1], HostSteal: 0.001, HostStealKnown: true}, Thresholds{}), false},
		{"empty.txt", Fidelity{Status: OK}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteText(&b, c.f, c.all); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name, b.Bytes())
		})
	}
}
