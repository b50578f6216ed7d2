package results

import (
	"bytes"
	"strings"
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

// TestWriteReportWorkloadsGolden pins the lines of the other flow kinds:
// an upload, rr, cbr and objects with 0-RTT.
func TestWriteReportWorkloadsGolden(t *testing.T) {
	i := func(n int64) *int64 { return &n }
	f := func(v float64) *float64 { return &v }
	hs := 600.5
	s := &Summary{
		Run: "20261201T000000Z-throughput", Scenario: "throughput", Status: StatusOK, Seed: 7, DurationS: 31,
		Flows: []FlowResult{
			{Name: "down", Path: "dc", Proto: "tcp", ServerImpl: "go", ClientImpl: "go", CC: "cubic", Bytes: 70e6, Seconds: 30, GoodputMbps: 18.667, Complete: true, FlowWorkload: FlowWorkload{Kind: "bulk", Direction: "down"}},
			{Name: "up", Path: "dc", Proto: "tcp", ServerImpl: "go", ClientImpl: "go", CC: "cubic", Bytes: 60e6, Seconds: 30, GoodputMbps: 16, Complete: true,
				OWDMs: &DelayStats{P50: 30.2, P95: 41, P99: 55, Max: 80, N: 900}, FlowWorkload: FlowWorkload{Kind: "bulk", Direction: "up"}},
			{Name: "rr", Path: "dc", Proto: "quic", ServerImpl: "quic-go", ClientImpl: "quic-go", CC: "newreno", Bytes: 30000, Seconds: 30, GoodputMbps: 0.008, Complete: true,
				FlowWorkload: FlowWorkload{Kind: "rr", Direction: "down", Transactions: 300, LatencyMs: &DelayStats{P50: 20.4, P95: 31, P99: 40.2, Max: 52, N: 300}, HandshakeMs: &DelayStats{P50: 21, N: 1}}},
			{Name: "voip", Path: "dc", Proto: "udp", ServerImpl: "go", ClientImpl: "go", CC: "none", Bytes: 240000, Seconds: 30, GoodputMbps: 0.064, Complete: true,
				FlowWorkload: FlowWorkload{Kind: "cbr", Direction: "down", Sent: i(1500), Received: i(1499), Loss: f(0.000667), Reordered: i(0), JitterMs: f(0.31)},
				OWDMs:        &DelayStats{P50: 10.1, P95: 30.2, P99: 30.4, Max: 31, N: 1499}},
			{Name: "web", Path: "link1", Proto: "quic", ServerImpl: "quic-go", ClientImpl: "quic-go", CC: "newreno", Bytes: 1.5e6, Seconds: 3, GoodputMbps: 4, Complete: true,
				FlowWorkload: FlowWorkload{Kind: "objects", Direction: "down", FCTS: &DelayStats{P50: 1.25, P95: 1.9, P99: 1.9, Max: 1.9, N: 2},
					Objects: []ObjectResult{{Size: 500e3, FCTS: 1.25, Utilization: 0.064, Complete: true, HandshakeMs: &hs}, {Index: 1, Size: 1e6, FCTS: 1.9, Utilization: 0.084, Complete: true}},
					Resume:  &ResumeResult{Mode: "0rtt", FirstHandshakeMs: 601.2, FirstFCTS: 1.2, Connections: 1, Resumed: 1, ZeroRTT: 1}}},
		},
		JFI: 0.99,
	}
	var b bytes.Buffer
	WriteReport(&b, s, "")
	emutest.Golden(t, "report-workloads.golden", b.Bytes())
}

// TestWritePDCPBatchWait: a direction on the batch path gets a line with
// its receiving socket's wait; one without an estimate, or on the NFQUEUE
// path, does not.
func TestWritePDCPBatchWait(t *testing.T) {
	var b strings.Builder
	WritePDCP(&b, map[string]PDCPCounters{
		"down": {Batch: &BatchPath{SocketWaitMs: map[string]float64{"n": 59, "mean": 3.889, "max": 7.749}}},
		"up":   {Batch: &BatchPath{SocketWaitMs: map[string]float64{"n": 0}}},
	})
	WritePDCP(&b, map[string]PDCPCounters{"down": {}})
	got := b.String()
	want := "  batch path: PDUs waited 3.89 ms in the receiving gateway's socket over the run, 7.75 ms in the worst second\n"
	if strings.Count(got, "batch path:") != 1 || !strings.Contains(got, "PDCP down:") || !strings.Contains(got, "\nPDCP down: 0 PDUs on link1, 0 on link2; 0 reordered and repaired, 0 held (max 0 at once, hold p95 0.0 ms), 0 delivered past a gap on expiry, 0 duplicates and 0 late/out-of-window discarded\n"+want) {
		t.Errorf("got:\n%s\nwant one line after down's:\n%s", got, want)
	}
}

// TestWritePDCPTunnelled: a direction that tunnelled other clients'
// packets says how many; one that did not, nothing.
func TestWritePDCPTunnelled(t *testing.T) {
	var b strings.Builder
	WritePDCP(&b, map[string]PDCPCounters{
		"down": {Batch: &BatchPath{TunnelSent: 8123, TunnelDelivered: 8120}},
		"up":   {Batch: &BatchPath{}},
	})
	got := b.String()
	want := "  batch path: 8123 packets of the other clients crossed in the same UDP, unnumbered; 8120 delivered\n"
	if strings.Count(got, "unnumbered") != 1 || !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant once:\n%s", got, want)
	}
}

// TestWritePDCPFlowControl: a direction with flow control gets a line of
// its legs and one of the host's buffer; one without (dc.fc=off) neither,
// and a host where nothing waited says no wait.
func TestWritePDCPFlowControl(t *testing.T) {
	var b strings.Builder
	WritePDCP(&b, map[string]PDCPCounters{
		"down": {FlowControl: &FlowControl{
			Legs: []LegFlowControl{
				{Link: "link1", Reports: 812, ReportsOnZero: 3, CreditLimitedS: 1.234, DesiredBufferLast: 256000},
				{Link: "link2", Reports: 790, ReportsOnZero: 0, StaleReports: 2, CreditLimitedS: 0, DesiredBufferLast: 64000},
			},
			HostHeld: 1200, HostDropped: 4,
			HostWaitMs:         map[string]float64{"n": 1200, "p50": 1.52, "p95": 12.04, "max": 40},
			HostBufferBytesMax: 1_500_000,
		}},
		"up": {},
	})
	got := b.String()
	want := "0 late/out-of-window discarded\n" +
		"  flow control: link1: 812 reports (3 at 0), credit-limited 1.23 s, last DBS 256.0 kB; link2: 790 reports (0 at 0, 2 stale), credit-limited 0.00 s, last DBS 64.0 kB\n" +
		"  flow control: host held 1200 SDUs (wait p50 1.5 ms, p95 12.0 ms), dropped 4 before an SN, buffer max 1.5 MB\n" +
		"\nPDCP up:"
	if strings.Count(got, "flow control:") != 2 || !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant down's lines:\n%s", got, want)
	}
	lines := FlowControlLines(&FlowControl{HostWaitMs: map[string]float64{"n": 0, "p50": 0, "p95": 0}})
	if len(lines) != 1 || lines[0] != "flow control: host held 0 SDUs, dropped 0 before an SN, buffer max 0 B" {
		t.Errorf("nothing waited: %q", lines)
	}
	if FlowControlLines(nil) != nil {
		t.Error("lines without flow control")
	}
}
