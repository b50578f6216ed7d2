package sweep

import "github.com/dc-emu/emu/emu/results"

// PDCP metrics: how often a direction's receiving proxy waited out
// t-Reordering for a sequence number that never came, and how long it held
// packets back. They are the cost Dual Connectivity adds to every loss on
// either link: one expiry stalls the DC flow's in-order delivery for up to
// t-Reordering, which a single-link flow never pays, so a sweep that shows
// a DC flow starved shows here whether holds are why.
const (
	pdcpExpiriesSuffix = ".expiries_per_s"
	pdcpHoldP95Suffix  = ".hold_p95_ms"
)

// addPDCPMetrics adds each PDCP direction's t-Reordering expiries per
// second of the run and its p95 hold time to m.
func addPDCPMetrics(m map[string]float64, s *results.Summary) {
	for dir, c := range s.PDCP {
		p := "pdcp." + dir
		if s.DurationS > 0 {
			m[p+pdcpExpiriesSuffix] = float64(c.Expiries) / s.DurationS
		}
		if h, ok := c.HoldMs["p95"]; ok {
			m[p+pdcpHoldP95Suffix] = h
		}
	}
}

// pdcpMetricLabel is the axis label of a PDCP metric.
func pdcpMetricLabel(m string) (string, bool) {
	return labelBySuffix(m, "pdcp.",
		labelFormat{pdcpExpiriesSuffix, "t-Reordering expiries per s (%s)"},
		labelFormat{pdcpHoldP95Suffix, "p95 PDCP hold, %s (ms)"})
}
