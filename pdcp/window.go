package pdcp

import (
	"fmt"
	"time"
)

// WindowWarning checks a configuration against the receive window
// (pdcp-reordering.md §6). While the receiver waits for a hole, every PDU
// W or more COUNTs past it is discarded as out of window, and a hole can be
// waited for up to almost 2 × t-Reordering (Example D). rateBps is the rate
// at which PDUs reach the receiver (both links together, bit/s), pktBytes
// the PDU size (≤ 0 means 1500). It returns a warning for the lead to print
// when rate × 2·t-Reordering reaches W PDUs (a hole followed by a second one
// can overflow the window) or rate × t-Reordering does (any lost PDU
// overflows it), and false when the window is large enough or bits is
// invalid. The warning says what overflows and why; the remedy, which
// names the settings to change, is the caller's to add.
func WindowWarning(rateBps float64, tReordering time.Duration, bits int, pktBytes int) (string, bool) {
	if CheckSNBits(bits) != nil || !(rateBps > 0) || tReordering <= 0 {
		return "", false
	}
	if pktBytes <= 0 {
		pktBytes = 1500
	}
	w := float64(Window(bits))
	pps := rateBps / 8 / float64(pktBytes)
	once := pps * tReordering.Seconds()
	var what string
	var pkts float64
	var mult string
	switch {
	case once >= w:
		what, pkts, mult = "overflows whenever a PDU is lost", once, ""
	case 2*once >= w:
		what, pkts, mult = "can overflow", 2*once, "2×"
	default:
		return "", false
	}
	return fmt.Sprintf("%d-bit SN window (%d PDUs) %s: %s × %s%v ≈ %.0f PDUs of %d B",
		bits, int(w), what, formatMbps(rateBps), mult, tReordering, pkts, pktBytes), true
}

// formatMbps prints a rate in Mbit/s with as many decimals as it needs.
func formatMbps(bps float64) string {
	return fmt.Sprintf("%.4g Mbit/s", bps/1e6)
}
