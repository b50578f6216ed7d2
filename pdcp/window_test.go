package pdcp

import (
	"strings"
	"testing"
	"time"
)

func TestWindowWarningThresholds(t *testing.T) {
	// 12-bit SNs, 200 ms, 1500 B: W = 2048 PDUs is 61.44 Mbit/s over 2 × 200 ms
	// and 122.88 Mbit/s over 200 ms (pdcp-reordering.md §6).
	cases := []struct {
		mbps float64
		bits int
		want string // "" for no warning
	}{
		{30, 12, ""},
		{61.43, 12, ""},
		{61.45, 12, "can overflow"},
		{80, 12, "12-bit SN window (2048 PDUs) can overflow: 80 Mbit/s × 2×200ms ≈ 2667 PDUs of 1500 B"},
		{122.8, 12, "can overflow"},
		{123, 12, "overflows whenever a PDU is lost: 123 Mbit/s × 200ms ≈ 2050 PDUs"},
		{1000, 18, ""},
		{3900, 18, ""}, // 18-bit: 3.93 Gbit/s over 2 × 200 ms
		{4000, 18, "18-bit SN window (131072 PDUs) can overflow: 4000 Mbit/s × 2×200ms ≈ 133333 PDUs"},
		{8000, 18, "overflows whenever a PDU is lost"},
	}
	for _, tc := range cases {
		msg, warn := WindowWarning(tc.mbps*1e6, 200*time.Millisecond, tc.bits, 1500)
		if warn != (tc.want != "") || !strings.Contains(msg, tc.want) {
			t.Errorf("%v Mbit/s, %d-bit: %v %q, want %q", tc.mbps, tc.bits, warn, msg, tc.want)
		}
		if strings.Contains(msg, "dc.") || strings.Contains(msg, ";") {
			t.Errorf("the warning names settings, which is the caller's to do: %q", msg)
		}
	}
}

func TestWindowWarningInputs(t *testing.T) {
	// Smaller PDUs mean more of them: 1280 B at 60 Mbit/s overflows 2×200 ms.
	if _, warn := WindowWarning(60e6, 200*time.Millisecond, 12, 1280); !warn {
		t.Error("60 Mbit/s of 1280-byte PDUs should warn")
	}
	if _, warn := WindowWarning(60e6, 200*time.Millisecond, 12, 0); warn {
		t.Error("pktBytes 0 means 1500: 60 Mbit/s should not warn")
	}
	// A shorter t-Reordering is the other remedy.
	if _, warn := WindowWarning(80e6, 100*time.Millisecond, 12, 1500); warn {
		t.Error("80 Mbit/s with 100 ms should not warn")
	}
	for _, tc := range []struct {
		rate float64
		tr   time.Duration
		bits int
	}{{0, time.Second, 12}, {1e9, 0, 12}, {1e9, time.Second, 16}} {
		if msg, warn := WindowWarning(tc.rate, tc.tr, tc.bits, 1500); warn {
			t.Errorf("WindowWarning(%v, %v, %d) = %q", tc.rate, tc.tr, tc.bits, msg)
		}
	}
}
