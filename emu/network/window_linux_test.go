package network

import (
	"testing"
	"time"
)

// TestWindowWarning: the warning of an overflowing PDCP window names the
// keys that fix it, and does not suggest 18-bit SNs to a run that has them.
func TestWindowWarning(t *testing.T) {
	for _, tc := range []struct {
		mbps float64
		bits int
		want string
	}{
		{30, 12, ""},
		{80, 12, "dc: 12-bit SN window (2048 PDUs) can overflow: 80 Mbit/s × 2×200ms ≈ 2667 PDUs of 1500 B; set dc.sn_bits=18 or lower dc.t_reordering"},
		{4000, 18, "dc: 18-bit SN window (131072 PDUs) can overflow: 4000 Mbit/s × 2×200ms ≈ 133333 PDUs of 1500 B; lower dc.t_reordering or the rate"},
	} {
		msg, warn := windowWarning(tc.mbps*1e6, pdcpSettings{SNBits: tc.bits, TReordering: 200 * time.Millisecond})
		if msg != tc.want || warn != (tc.want != "") {
			t.Errorf("%v Mbit/s, %d-bit: %v %q, want %q", tc.mbps, tc.bits, warn, msg, tc.want)
		}
	}
}
