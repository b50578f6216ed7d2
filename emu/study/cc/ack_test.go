package cc

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/findings"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study/studytest"
)

// TestLFNAckAxis: lfn's ack axis makes the QUIC flows ngtcp2 with the
// axis's threshold, leaves the TCP flows at the default (and the TCP-only
// mixes, which it does not change, are one point each), and compares with
// ack=2.
func TestLFNAckAxis(t *testing.T) {
	p := studytest.Named(t, Study(), LFN)
	var ack *results.Axis
	for i := range p.Vary {
		if p.Vary[i].Key == AckAxis {
			ack = &p.Vary[i]
		}
	}
	if ack == nil || strings.Join(ack.Values, ",") != "2,20" || ack.Baseline != AckDefault {
		t.Fatalf("ack axis: %+v", ack)
	}
	if len(p.Points) != 5*(5*2+3) {
		t.Errorf("%d points, want 65 (5 RTTs × 5 QUIC mixes × 2 thresholds + 3 TCP-only mixes)", len(p.Points))
	}
	for _, pt := range p.Points {
		label := pt.Labels[AckAxis]
		if !strings.Contains(pt.Labels["flows"], "q") {
			if label != "*" {
				t.Errorf("%s (%s): TCP-only mix labelled ack=%s, want *", pt.ID, pt.Labels["flows"], label)
			}
			continue
		}
		for _, f := range studytest.Config(t, p, pt.ID).Flows {
			want := 2
			if f.Proto == "quic" {
				if f.ClientImpl != "ngtcp2" || f.ServerImpl != "ngtcp2" {
					t.Errorf("%s: QUIC flow %s is %s/%s", pt.ID, f.Name, f.ServerImpl, f.ClientImpl)
				}
				if label == AckRaised {
					want = 20
				}
			}
			if f.AckThresh != want {
				t.Errorf("%s (ack=%s): flow %s ack_thresh %d, want %d", pt.ID, label, f.Name, f.AckThresh, want)
			}
		}
	}
	r := findings.Results{LFN: findings.FromTable(LFN, table(p, 50, 80))}
	if err := findings.Validate([]findings.Finding{AckFinding()}, r); err != nil {
		t.Errorf("the finding against the plan: %v", err)
	}
}

// table is an lfn sweep's table with every QUIC mix at goodput lo with
// ack=2 and hi with 20, five runs each, and the CPU metrics.
func table(p *results.Plan, lo, hi float64) *results.SweepTable {
	t := &results.SweepTable{Plan: p}
	for _, pt := range p.Points {
		g := lo
		if pt.Labels[AckAxis] == AckRaised {
			g = hi
		}
		st := func(m float64) results.Stat { return results.Stat{Mean: m, SD: m / 50, CI95: m / 40, N: 5} }
		t.Rows = append(t.Rows, results.SweepRow{ID: pt.ID, Labels: pt.Labels, OK: 5, Stats: map[string]results.Stat{
			results.MetricGoodput:                                   st(g),
			results.MetricRelativeGoodput:                           st(g / lo),
			results.MetricEmulatorCPU:                               st(0.3),
			results.FlowMetric("quic1", results.QClientCPU):         st(0.95),
			results.FlowMetric("quic1", results.QAcksPerDataPacket): st(2 / g),
			results.FlowMetric("quic1", results.QGoodput):           st(g),
			results.FlowMetric("tcp1", results.QClientCPU):          st(0.2),
		}})
	}
	return t
}

// TestAckTable: an lfn sweep gets the ACK table, each point's gain and
// CPU, and the finding's verdict at the RTTs it has runs of; another sweep
// gets nothing.
func TestAckTable(t *testing.T) {
	p := studytest.Named(t, Study(), LFN)
	cases := []struct {
		name   string
		lo, hi float64
		want   findings.Verdict
	}{
		{"the reference's gain", 40, 64, findings.Holds},
		{"a smaller gain", 40, 44, findings.ShapeOnly},
		{"a loss", 40, 30, findings.Fails},
	}
	for _, c := range cases {
		var b bytes.Buffer
		Study().Tables(&b, table(p, c.lo, c.hi))
		out := b.String()
		for _, w := range []string{"ACK threshold (lfn)", "emulator CPU", "QUIC client CPU", "finding lfn-ack at rtt 1ms, 10ms, 50ms, 100ms, 180ms: " + string(c.want)} {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, out)
			}
		}
		if !strings.Contains(out, "0.95") || !strings.Contains(out, "0.30") {
			t.Errorf("%s: the CPU figures are missing:\n%s", c.name, out)
		}
	}
	// A slice: two RTTs run, the others missing.
	slice := table(p, 40, 64)
	var kept []results.SweepRow
	for _, r := range slice.Rows {
		if r.Labels["rtt"] == "1ms" || r.Labels["rtt"] == "50ms" {
			kept = append(kept, r)
		}
	}
	slice.Rows = kept
	var b bytes.Buffer
	Study().Tables(&b, slice)
	if !strings.Contains(b.String(), "finding lfn-ack at rtt 1ms, 50ms: holds") {
		t.Errorf("slice:\n%s", b.String())
	}
	b.Reset()
	Study().Tables(&b, &results.SweepTable{Plan: studytest.Named(t, Study(), "cca-5g")})
	if b.Len() != 0 {
		t.Errorf("cca-5g got a table:\n%s", b.String())
	}
}
