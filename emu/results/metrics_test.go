package results

import "testing"

// TestMetricNames: the names a sweep's tables carry, built and read back
// by the one owner.
func TestMetricNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{FlowGoodput("dc"), "flow.dc.goodput_mbps"},
		{FlowMetric("sc1", QP95SRTT), "flow.sc1.p95_srtt_ms"},
		{LinkUtilizationP99("link2"), "link2.down.utilization_p99"},
		{LinkDirUtilization("link1", "up"), "link1.up.utilization"},
		{DirUtilization("down"), "link.down.utilization"},
		{PDCPRepairs("down"), "pdcp.down.repairs"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
	for m, want := range map[string]string{"flow.dc.goodput_mbps": "dc", "flow.a.b.goodput_mbps": "a.b"} {
		if f, ok := GoodputFlow(m); !ok || f != want {
			t.Errorf("GoodputFlow(%q) = %q, %v; want %q", m, f, ok, want)
		}
	}
	for _, m := range []string{MetricGoodput, "flow.dc.p95_rtt_ms", "link1.down.goodput_mbps", MetricJFI} {
		if f, ok := GoodputFlow(m); ok {
			t.Errorf("GoodputFlow(%q) = %q: not a flow's goodput", m, f)
		}
	}
}
