package endpoint

import (
	"slices"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/internal/tcpinfo"
	"github.com/dc-emu/emu/emu/results"
)

func TestNewPathState(t *testing.T) {
	// 50 Mbit/s at 600 ms: a BDP of 3.75 MB, 2,590 segments of 1,448 B.
	full := tcpinfo.Info{MinRTT: 600 * time.Millisecond, SndCwnd: 4000, SndMSS: 1448, DeliveryRate: 50e6 / 8}
	for _, tc := range []struct {
		name     string
		ti       tcpinfo.Info
		initCwnd int
		bdp      int64
	}{
		{"cwnd above the BDP: the BDP", full, 2590, 3_750_000},
		{"cwnd below the BDP: the cwnd", tcpinfo.Info{MinRTT: full.MinRTT, SndCwnd: 700, SndMSS: 1448, DeliveryRate: full.DeliveryRate}, 700, 3_750_000},
		{"never below the kernel's 10", tcpinfo.Info{MinRTT: time.Millisecond, SndCwnd: 700, SndMSS: 1448, DeliveryRate: 1e6}, 10, 1000},
	} {
		s, err := newPathState(tc.ti)
		if err != nil || s.initCwnd != tc.initCwnd || s.bdp() != tc.bdp {
			t.Errorf("%s: initcwnd %d, bdp %d, %v; want %d, %d", tc.name, s.initCwnd, s.bdp(), err, tc.initCwnd, tc.bdp)
		}
	}
	if _, err := newPathState(tcpinfo.Info{SndCwnd: 10, SndMSS: 1448}); err == nil {
		t.Error("a connection without an RTT or delivery rate gave a path state")
	}
	s, _ := newPathState(full)
	if r := s.result(true); r.MinRTTMs != 600 || r.DeliveryMbps != 50 || r.InitCwnd != 2590 || r.PacingMbps != 50 || !r.Check {
		t.Errorf("result %+v", r)
	}
}

func TestClientWindow(t *testing.T) {
	p := results.PathState{InitCwnd: 2590, MSS: 1448, BDPBytes: 3_750_000}
	buf, rwnd := clientWindow(p)
	if buf != 2*2590*1448 || rwnd != 2*2590 {
		t.Errorf("rcvbuf %d, initrwnd %d: want twice the first window", buf, rwnd)
	}
	if buf, _ := clientWindow(results.PathState{InitCwnd: 10, MSS: 1448, BDPBytes: 1000}); buf != 4<<20 {
		t.Errorf("a small path: rcvbuf %d, want no less than 4 MiB", buf)
	}
	if buf, _ := clientWindow(results.PathState{InitCwnd: 1e6, MSS: 1448}); buf != maxRcvBuf {
		t.Errorf("a huge window: rcvbuf %d, want %d", buf, maxRcvBuf)
	}
}

func TestResumeCheck(t *testing.T) {
	const rate = 50e6 / 8 // remembered: 50 Mbit/s
	for _, tc := range []struct {
		acked int64
		span  time.Duration
		low   bool
	}{
		{625_000, 100 * time.Millisecond, false}, // 50 Mbit/s
		{320_000, 100 * time.Millisecond, false}, // 25.6 Mbit/s
		{300_000, 100 * time.Millisecond, true},  // 24 Mbit/s
		{0, 100 * time.Millisecond, true},
		{0, 0, false},
	} {
		if got := ackRateLow(tc.acked, tc.span, rate); got != tc.low {
			t.Errorf("%d B in %v against 50 Mbit/s: low %v, want %v", tc.acked, tc.span, got, tc.low)
		}
	}
	s := pathState{minRTT: 600 * time.Millisecond, mss: 1448, rate: rate, initCwnd: 2590}
	if d := checkSpan(s, 1e6); d != 160*time.Millisecond {
		t.Errorf("1 MB at 50 Mbit/s: span %v, want 160ms", d)
	}
	if d := checkSpan(s, 100e6); d != 600*time.Millisecond {
		t.Errorf("a window of one BDP: span %v, want one RTT", d)
	}
	if d := checkSpan(s, 1); d != 10*time.Millisecond {
		t.Errorf("one byte: span %v, want the 10 ms floor", d)
	}
	caps := normalStartCaps(s)
	// 20 segments per 600 ms is 48,267 B/s; the caps double for 8 rounds before they reach 50 Mbit/s.
	if len(caps) != 8 || caps[0] != 48266 || !slices.IsSorted(caps) || caps[len(caps)-1] >= rate {
		t.Errorf("normal start caps %v", caps)
	}
}
