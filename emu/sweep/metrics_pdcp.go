package sweep

import (
	"fmt"
	"strings"

	"github.com/dc-emu/emu/emu/results"
)

// PDCP metrics: how often a direction's receiving proxy waited out
// t-Reordering for a sequence number that never came, and how long it held
// packets back. They are the cost Dual Connectivity adds to every loss on
// either link: one expiry stalls the DC flow's in-order delivery for up to
// t-Reordering, which a single-link flow never pays, so a sweep that shows
// a DC flow starved shows here whether holds are why.
//
// With DC flow control (dc.fc=ddds) three more say what credit cost: the
// SDUs the PDCP host dropped before an SN, how long SDUs waited there for
// credit, and per leg how long the host had a PDU the leg had no credit
// for ("pdcp.down.link1.fc_limited_s").
const (
	pdcpExpiriesSuffix  = ".expiries_per_s"
	pdcpHoldP95Suffix   = ".hold_p95_ms"
	pdcpFCDroppedSuffix = ".fc_host_dropped"
	pdcpFCWaitP95Suffix = ".fc_wait_p95_ms"
	pdcpFCLimitedSuffix = ".fc_limited_s"
)

// addPDCPMetrics adds each PDCP direction's t-Reordering expiries per
// second of the run and its p95 hold time to m, and with flow control its
// host's drops and p95 wait and each leg's credit-limited time.
func addPDCPMetrics(m map[string]float64, s *results.Summary) {
	for dir, c := range s.PDCP {
		p := "pdcp." + dir
		if s.DurationS > 0 {
			m[p+pdcpExpiriesSuffix] = float64(c.Expiries) / s.DurationS
		}
		if h, ok := c.HoldMs["p95"]; ok {
			m[p+pdcpHoldP95Suffix] = h
		}
		if fc := c.FlowControl; fc != nil {
			m[p+pdcpFCDroppedSuffix] = float64(fc.HostDropped)
			if w, ok := results.FlowControlWaitP95(fc); ok {
				m[p+pdcpFCWaitP95Suffix] = w
			}
			for _, l := range fc.Legs {
				m[p+"."+l.Link+pdcpFCLimitedSuffix] = l.CreditLimitedS
			}
		}
	}
}

// pdcpMetricLabel is the axis label of a PDCP metric.
func pdcpMetricLabel(m string) (string, bool) {
	if name, ok := strings.CutPrefix(m, "pdcp."); ok {
		if dirLink, ok := strings.CutSuffix(name, pdcpFCLimitedSuffix); ok {
			if dir, link, ok := strings.Cut(dirLink, "."); ok {
				return fmt.Sprintf("time %s was credit-limited, %s (s)", link, dir), true
			}
		}
	}
	return labelBySuffix(m, "pdcp.",
		labelFormat{pdcpExpiriesSuffix, "t-Reordering expiries per s (%s)"},
		labelFormat{pdcpHoldP95Suffix, "p95 PDCP hold, %s (ms)"},
		labelFormat{pdcpFCDroppedSuffix, "SDUs dropped before an SN by flow control (%s)"},
		labelFormat{pdcpFCWaitP95Suffix, "p95 wait for flow-control credit, %s (ms)"})
}
