package sweep

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/findings"
	"github.com/dc-emu/emu/emu/results"
)

// seriesCSV builds a timeseries.csv of 0.1 s bins: two flows a and b and
// both downlinks at 20 Mbit/s, from per-bin values.
func seriesCSV(a, b, l1, l2 []float64) string {
	var s strings.Builder
	s.WriteString("t_s,flow.a.goodput_mbps,flow.b.goodput_mbps,link1.down.capacity_mbps,link1.down.throughput_mbps,link1.down.queue_bytes,link2.down.capacity_mbps,link2.down.throughput_mbps,link2.down.queue_bytes\n")
	for i := range a {
		fmt.Fprintf(&s, "%.1f,%g,%g,20,%g,0,20,%g,0\n", float64(i+1)/10, a[i], b[i], l1[i], l2[i])
	}
	return s.String()
}

func readSeries(t *testing.T, text string) *results.Timeseries {
	t.Helper()
	ts, err := results.ReadTimeseries(strings.NewReader(text), "timeseries.csv")
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func fill(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func dcSummary() *results.Summary {
	return &results.Summary{
		Flows: []results.FlowResult{{Name: "a", Path: "dc"}, {Name: "b", Path: "link1"}},
		Links: []results.LinkResult{
			{Name: "link1", Dir: "down", ThroughputMbps: 19.5}, {Name: "link1", Dir: "up", ThroughputMbps: 0.4},
			{Name: "link2", Dir: "down", ThroughputMbps: 12.25}, {Name: "link2", Dir: "up", ThroughputMbps: 0.3},
		},
	}
}

func TestSeriesMetrics(t *testing.T) {
	// 2 bins before any goodput, then 20 bins: the flows share equally for
	// 1 s, then 3:1 for 1 s. link2 carries 5 of 20 Mbit/s in 4 bins of
	// the 20 (and in the 2 idle bins, which do not count).
	const idle, n = 2, 22
	a, b, l1, l2 := fill(n, 10), fill(n, 10), fill(n, 20), fill(n, 20)
	for i := range idle {
		a[i], b[i], l2[i] = 0, 0, 0
	}
	for i := idle + 10; i < n; i++ {
		a[i], b[i] = 15, 5
	}
	for _, i := range []int{3, 7, 11, 19} {
		l2[i] = 5
	}
	l1[20] = 22 // one bin above capacity: the p99 of 20 bins is the largest
	m := SeriesMetrics(dcSummary(), readSeries(t, seriesCSV(a, b, l1, l2)))
	want := map[string]float64{
		results.MetricLinksDown:             31.75,
		results.MetricUnderused:             4.0 / 20,
		results.LinkUtilizationP99("link1"): 1.1,
		results.LinkUtilizationP99("link2"): 1,
		results.MetricJFI1s:                 (1 + 0.8) / 2, // 3:1 is (3+1)²/(2·(9+1)) = 0.8
	}
	for k, v := range want {
		if got, ok := m[k]; !ok || math.Abs(got-v) > 1e-9 {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	// 2 s of active flows hold no whole 10 s window.
	if v, ok := m[results.MetricJFI10s]; !ok || !math.IsNaN(v) {
		t.Errorf("%s = %v (present %v), want NaN", results.MetricJFI10s, v, ok)
	}
}

func TestSeriesMetricsOneFlowAndNoSeries(t *testing.T) {
	s := dcSummary()
	s.Flows = s.Flows[:1]
	ts := readSeries(t, "t_s,flow.a.goodput_mbps,link1.down.capacity_mbps,link1.down.throughput_mbps\n0.1,5,20,8\n0.2,5,20,12\n")
	m := SeriesMetrics(s, ts)
	for _, k := range []string{results.MetricJFI1s, results.MetricJFI10s, results.LinkUtilizationP99("link2")} {
		if _, ok := m[k]; ok {
			t.Errorf("one flow, link1 only: %s present", k)
		}
	}
	if m[results.MetricUnderused] != 0.5 || m[results.LinkUtilizationP99("link1")] != 0.6 {
		t.Errorf("underused %v, link1 p99 %v; want 0.5 and 0.6", m[results.MetricUnderused], m[results.LinkUtilizationP99("link1")])
	}
	if m := SeriesMetrics(s, nil); len(m) != 1 || m[results.MetricLinksDown] != 31.75 {
		t.Errorf("without a time series: %v, want only %s = 31.75", m, results.MetricLinksDown)
	}
}

func TestRunMetricsReadsTheTimeseries(t *testing.T) {
	dir := t.TempDir()
	s := dcSummary()
	m, err := runMetrics(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m[results.MetricUnderused]; ok {
		t.Errorf("no timeseries.csv, yet %s = %v", results.MetricUnderused, m[results.MetricUnderused])
	}
	csv := seriesCSV(fill(3, 1), fill(3, 1), fill(3, 20), fill(3, 2))
	if err := os.WriteFile(filepath.Join(dir, results.TimeseriesFile), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err = runMetrics(dir, s); err != nil || m[results.MetricUnderused] != 1 {
		t.Errorf("underused %v (%v), want 1", m[results.MetricUnderused], err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.TimeseriesFile), []byte("t_s,x\n0.1,oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runMetrics(dir, s); err == nil || !strings.Contains(err.Error(), "timeseries.csv:2") {
		t.Errorf("malformed timeseries.csv: %v, want an error naming the file and line", err)
	}
}

// TestSeriesMetricsCoverTheFindings: every metric the paper's findings
// need beyond the basic ones is one SeriesMetrics gives a DC fairness run.
func TestSeriesMetricsCoverTheFindings(t *testing.T) {
	m := SeriesMetrics(dcSummary(), readSeries(t, seriesCSV(fill(200, 5), fill(200, 5), fill(200, 20), fill(200, 20))))
	for _, nm := range findings.NeededMetrics() {
		if _, ok := m[nm[0]]; !ok {
			t.Errorf("reproduce needs %s (%s); SeriesMetrics gives %v", nm[0], nm[1], m)
		}
	}
}
