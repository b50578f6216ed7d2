package results

import (
	"bytes"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/internal/emutest"
)

// TestWriteReportGolden pins the terminal summary of a fairness run: the
// flow table, JFI, an MPTCP flow's subflows, the links with where their
// rate came from and their queueing delay, PDCP, the fidelity verdict with
// its failed checks, and warnings.
func TestWriteReportGolden(t *testing.T) {
	s := &Summary{
		Run: "20261201T000000Z-fairness", Scenario: "fairness", Status: StatusOK, Seed: 42,
		Started: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), DurationS: 61.2,
		Flows: []FlowResult{
			{Name: "dc", Path: "dc", Proto: "quic", ServerImpl: "quic-go", ClientImpl: "quic-go", CC: "newreno", Bytes: 86_000_000, Seconds: 60, GoodputMbps: 11.467, Complete: true},
			{Name: "link1", Path: "link1", Proto: "quic", ServerImpl: "quic-go", ClientImpl: "quic-go", CC: "newreno", Bytes: 99_500_000, Seconds: 60, GoodputMbps: 13.267, Complete: true},
			{Name: "link2", Path: "link2", Proto: "tcp", ServerImpl: "go", ClientImpl: "go", CC: "cubic", Bytes: 1500, Seconds: 60, GoodputMbps: 0.0002},
			{Name: "mptcp", Path: "mptcp", Proto: "tcp", ServerImpl: "go", ClientImpl: "go", CC: "cubic", Bytes: 90_000_000, Seconds: 60, GoodputMbps: 12, Complete: true,
				Subflows: []SubflowResult{
					{ID: 1, Link: "link1", Remote: "10.2.3.2:40000", CC: "cubic", BytesAcked: 60_000_000, Share: 0.666, SRTTMs: DelayStats{P50: 24.5, P95: 61.25},
						MaxCwndBytes: 150_000, TotalRetrans: 12, FirstS: 0.1, LastS: 60.1},
					{ID: 2, Link: "link2", Remote: "10.2.4.2:40001", CC: "cubic", BytesAcked: 30_100_000, Share: 0.334, SRTTMs: DelayStats{P50: 30, P95: 80},
						MaxCwndBytes: 90_000, TotalRetrans: 3, FirstS: 0.15, LastS: 60.1},
				},
				SubflowTotals: &SubflowTotals{Subflows: 2, BytesAcked: 90_100_000, BytesSent: 90_200_000, BytesRetrans: 21_720, TotalRetrans: 15}},
		},
		JFI: 0.663,
		Links: []LinkResult{
			{Name: "link1", Dir: "down", RateSource: "constant", CapacityMbps: 20, ThroughputMbps: 19.1, Utilization: 0.955, Drops: 12,
				QueueDelayMs: &DelayStats{P50: 48.2, P95: 50.1, P99: 50.4, Max: 51.3, Mean: 44.7, N: 6100}, QueueDelayMethod: "rate limiter counters, sampled every 10ms"},
			{Name: "link2", Dir: "down", RateSource: "trace", Trace: "StaticA", CapacityMbps: 4.525, ThroughputMbps: 4.3, Utilization: 0.95},
		},
		PDCP: map[string]PDCPCounters{"down": {TxLink1: 5000, TxLink2: 4000, Reordered: 300, Held: 310, MaxBuffer: 40,
			HoldMs: map[string]float64{"p95": 12.5}}},
		Warnings: []string{"12-bit SNs can wrap during a 200ms t-Reordering stall above 61 Mbit/s"},
		Fidelity: &fidelity.Fidelity{Status: fidelity.Degraded, Checks: []fidelity.Check{
			{Name: fidelity.CheckLateP99, Subject: "link1.down", Value: 0.16, Threshold: 0.5, Unit: fidelity.UnitMs, OK: true, Detail: "p99 0.160 ms after the due time"},
			{Name: fidelity.CheckEndpointCPU, Subject: "dc server", Value: 0.97, Threshold: 0.9, Unit: fidelity.UnitCores, Detail: "CPU-bound at 0.97 of a core: flow dc is limited by the host, not the network"},
		}},
	}
	var b bytes.Buffer
	WriteReport(&b, s, "results/20261201T000000Z-fairness")
	emutest.Golden(t, "report.golden", b.Bytes())
}
