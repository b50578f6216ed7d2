package emu

import (
	"math"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/linkstats"
)

func TestIPSentAtInterpolates(t *testing.T) {
	ms := time.Millisecond
	// 10 full-size frames per 10 ms: 15,140 wire bytes, 15,000 IP bytes.
	series := []linkstats.Sample{
		{T: 100 * ms, Bytes: 0, Packets: 0, Backlog: 3000},
		{T: 110 * ms, Bytes: 15140, Packets: 10, Backlog: 6000},
		{T: 120 * ms, Bytes: 30280, Packets: 20},
	}
	for _, c := range []struct {
		t    time.Duration
		want float64
	}{
		{50 * ms, 0}, {100 * ms, 0}, {105 * ms, 7500}, {110 * ms, 15000}, {117500 * time.Microsecond, 26250}, {200 * ms, 30000},
	} {
		if got := ipSentAt(series, c.t); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("ipSentAt(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	for _, c := range []struct {
		t    time.Duration
		want uint64
	}{{99 * ms, 0}, {100 * ms, 3000}, {119 * ms, 6000}, {time.Second, 0}} {
		if got := backlogAt(series, c.t); got != c.want {
			t.Errorf("backlogAt(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	if ipSentAt(nil, ms) != 0 || backlogAt(nil, ms) != 0 {
		t.Error("an empty series has something")
	}
	if got := lastT([][]linkstats.Sample{series, nil, series[:1]}); got != 120*ms {
		t.Errorf("lastT = %v", got)
	}
}

func TestQueueDelayFigures(t *testing.T) {
	q := linkstats.QueueDelay{Bins: []linkstats.Bin{{Bytes: 0}, {Bytes: 1500, Mean: 48765432 * time.Nanosecond}}}
	if v := binQueueDelay(q, 0); !math.IsNaN(v) {
		t.Errorf("a bin nothing left: %v, want NaN (an empty cell)", v)
	}
	if v := binQueueDelay(q, 1); v != 48.765 {
		t.Errorf("bin 1: %v ms", v)
	}
	if v := binQueueDelay(q, 5); !math.IsNaN(v) {
		t.Errorf("a bin past the series: %v", v)
	}
	if delayStats(linkstats.Dist{}, 10) != nil {
		t.Error("stats of no bytes")
	}
	d := delayStats(linkstats.Dist{Bytes: 1e6, P50: 20 * time.Millisecond, P95: 49500 * time.Microsecond, P99: 49900 * time.Microsecond,
		Max: 51 * time.Millisecond, Mean: 30 * time.Millisecond}, 600)
	if d == nil || d.P50 != 20 || d.P95 != 49.5 || d.P99 != 49.9 || d.Max != 51 || d.Mean != 30 || d.N != 600 {
		t.Errorf("delayStats: %+v", d)
	}
}

// TestLatePeakIn: a bin's lateness is the largest peak of the readings
// taken in it, each reading's peak covering the time since the one before.
func TestLatePeakIn(t *testing.T) {
	ms := time.Millisecond
	s := []linkstats.Sample{{T: 10 * ms, LatePeak: 20 * time.Microsecond}, {T: 50 * ms, LatePeak: 75 * ms}, {T: 100 * ms}, {T: 110 * ms, LatePeak: 3 * ms}}
	for _, tc := range []struct {
		from, to time.Duration
		want     float64
	}{
		{0, 100 * ms, 75}, {100 * ms, 200 * ms, 3}, {0, 40 * ms, 0.02}, {200 * ms, 300 * ms, 0},
	} {
		if got := latePeakIn(s, tc.from, tc.to); got != tc.want {
			t.Errorf("(%v, %v]: %v ms, want %v", tc.from, tc.to, got, tc.want)
		}
	}
}
