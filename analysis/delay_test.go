package analysis

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

func TestBinMeans(t *testing.T) {
	s := DelaySeries{T: []float64{0.01, 0.05, 0.15, 0.35, 0.399, 5}, MS: []float64{10, 20, 30, 40, 60, 99}}
	got := s.BinMeans(100*time.Millisecond, 4)
	want := []float64{15, 30, math.NaN(), 50}
	for i := range want {
		if !(got[i] == want[i] || math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Errorf("bin %d: %v, want %v (all %v)", i, got[i], want[i], got)
		}
	}
}

func TestTCPInfoSeriesStopsWhenTheConnectionIdles(t *testing.T) {
	row := func(t float64, sf uint32, acked int64, srtt float64) results.TCPInfoRow {
		return results.TCPInfoRow{T: t, Subflow: sf, BytesAcked: acked, SRTTMs: srtt, RTTVarMs: math.NaN(), MinRTTMs: 20,
			CwndBytes: 10000, InFlightBytes: 5000, BytesSent: acked, TotalRetrans: 0, Lost: 0,
			DeliveryRateMbps: math.NaN(), PacingRateMbps: math.NaN()}
	}
	rows := []results.TCPInfoRow{
		row(0.00, 1, 0, 20), row(0.00, 2, 0, 40),
		row(0.01, 1, 1000, 25), row(0.01, 2, 1000, 45),
		row(0.02, 1, 2000, 30), row(0.02, 2, 1000, 50), // subflow 2 idle from here
		row(0.03, 1, 2000, 30), row(0.03, 2, 1000, 50), // both idle
	}
	s := TCPInfoSeries(rows)
	if got := len(s.MS); got != 5 {
		t.Fatalf("%d samples %v, want 5 (subflow 1 to 0.02 s, subflow 2 to 0.01 s)", got, s.MS)
	}
	a := AnalyzeTCPInfo(rows, "flows/x.tcpinfo.csv", "x")
	if len(a.Subflows) != 2 || a.Subflows[0].ID != 1 || a.Subflows[1].ID != 2 {
		t.Fatalf("subflows %+v", a.Subflows)
	}
	if a.Subflows[0].MeanSRTTMs != 25 || a.Subflows[1].MeanSRTTMs != 42.5 {
		t.Errorf("per-subflow mean sRTT %v %v, want 25 and 42.5", a.Subflows[0].MeanSRTTMs, a.Subflows[1].MeanSRTTMs)
	}
	if a.MinRTTMs != 20 || a.MaxCwndBytes != 10000 {
		t.Errorf("min RTT %v, max cwnd %d", a.MinRTTMs, a.MaxCwndBytes)
	}
	f, err := TCPCongestionFigure(a)
	if err != nil {
		t.Fatal(err)
	}
	svg := renderBoth(t, f)
	requireTexts(t, svg, "subflow 1 congestion window", "subflow 2 smoothed RTT", "time since run start (s)")
	if f.Name != "congestion-x-tcpinfo" {
		t.Errorf("name %q", f.Name)
	}
}

func TestQlogSRTTSeriesSamplesTheStepFunction(t *testing.T) {
	nan := math.NaN()
	a := &ConnAnalysis{Metrics: []MetricsPoint{
		{TimeMs: 0, Cwnd: 1, MinRTT: nan, SmoothedRTT: nan},
		{TimeMs: 5, MinRTT: 20, SmoothedRTT: 20},
		{TimeMs: 31, MinRTT: 20, SmoothedRTT: 40},
		{TimeMs: 52, MinRTT: 20, SmoothedRTT: 30},
	}}
	s := QlogSRTTSeries(a, 10*time.Millisecond, 1)
	// Read at 5, 15, 25, 35, 45 ms: 20, 20, 20, 40, 40 (52 is past the last read).
	want := []float64{20, 20, 20, 40, 40}
	if len(s.MS) != len(want) {
		t.Fatalf("%v, want %v", s.MS, want)
	}
	for i := range want {
		if s.MS[i] != want[i] {
			t.Errorf("sample %d: %v, want %v", i, s.MS[i], want[i])
		}
	}
	if math.Abs(s.T[0]-1.005) > 1e-9 {
		t.Errorf("first time %v, want 1.005 (offset 1 s)", s.T[0])
	}
	if got := QlogSRTTSeries(&ConnAnalysis{}, 10*time.Millisecond, 0); got.Len() != 0 {
		t.Errorf("no metrics: %v", got)
	}
}

func TestDelayStatsAndCDF(t *testing.T) {
	rows := []results.OWDRow{{T: time.Second, OWD: 10 * time.Millisecond}, {T: 2 * time.Second, Offset: 1, OWD: 30 * time.Millisecond},
		{T: 3 * time.Second, Offset: 2, OWD: 20 * time.Millisecond}}
	s := OWDSeries(rows)
	st := s.StatsPtr()
	if st == nil || st.P50 != 20 || st.Max != 30 || st.N != 3 || st.Mean != 20 {
		t.Fatalf("stats %+v", st)
	}
	if s.MS[0] != 10 || s.MS[1] != 30 {
		t.Error("Stats sorted the series itself")
	}
	x, p := s.CDF()
	if x[0] != 10 || x[2] != 30 || p[0] != 1.0/3 || p[2] != 1 {
		t.Errorf("cdf %v %v", x, p)
	}
	if (DelaySeries{}).StatsPtr() != nil {
		t.Error("an empty series has stats")
	}
}

func TestRunWithDelayLogs(t *testing.T) {
	ra, err := AnalyzeRun(os.DirFS("testdata/run-latency"), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]FlowAnalysis{}
	for _, f := range ra.Flows {
		byName[f.Name] = f
	}
	if len(ra.Flows) != 2 {
		t.Fatalf("flows %v: the TCP_INFO and one-way delay logs are not flows", ra.Flows)
	}
	tcp, quic := byName["link1"], byName["dc"]
	if tcp.RTTSource != RTTFromTCPInfo || tcp.RTTMs == nil || tcp.OWDMs == nil || !tcp.MeanSRTTMs.Valid() || tcp.MaxCwndBytes == nil {
		t.Errorf("TCP flow: %+v", tcp)
	}
	if quic.RTTSource != RTTFromSummary || quic.RTTMs == nil || quic.OWDMs == nil {
		t.Errorf("QUIC flow without qlog: %+v", quic)
	}
	// The run's own figures and analysis agree: rtt_ms comes from the
	// same log the analysis reads.
	if got := AnalyzeTCPInfo(mustTCPInfo(t, "testdata/run-latency/flows/link1.tcpinfo.csv"), "", "").RTT().StatsPtr(); got == nil || got.P95 != tcp.RTTMs.P95 {
		t.Errorf("TCP_INFO p95 %v, summary.json %v", got, tcp.RTTMs)
	}
	figs, notes, err := RunFigures(ra)
	if err != nil {
		t.Fatal(err)
	}
	if got := figureNames(figs); got != "throughput utilization delay owd-cdf congestion-link1-tcpinfo" {
		t.Errorf("figures %s; notes %q", got, notes)
	}
	for _, f := range figs {
		if f.Name == "delay" {
			requireTexts(t, renderBoth(t, f), "RTT (ms)", "one-way delay (ms)", "flow link1")
		}
	}
}

func mustTCPInfo(t *testing.T, name string) []results.TCPInfoRow {
	t.Helper()
	rows, err := readFS(os.DirFS("."), name, results.ReadTCPInfo)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestLatenessFigure: one line per delay line that was late, none for a
// line never late, and a note when no line was.
func TestLatenessFigure(t *testing.T) {
	csv := "t_s,link1.down.late_max_ms,link1.up.late_max_ms,link2.down.queue_delay_ms\n" +
		"0.1,0.021,0,3\n0.2,64.5,0,3\n0.3,0.018,0,3\n"
	ts, err := results.ReadTimeseries(strings.NewReader(csv), "timeseries.csv")
	if err != nil {
		t.Fatal(err)
	}
	f, err := LatenessFigure(ts, "r1")
	if err != nil {
		t.Fatal(err)
	}
	requireTexts(t, renderBoth(t, f), "lateness (ms)", "link1.down")
	if strings.Contains(renderBoth(t, f), "link1.up") {
		t.Error("a line never late is drawn")
	}
	none, _ := results.ReadTimeseries(strings.NewReader("t_s,link1.down.late_max_ms\n0.1,0\n"), "timeseries.csv")
	if _, err := LatenessFigure(none, "r1"); err == nil || !strings.Contains(err.Error(), "lateness: nothing to plot") {
		t.Errorf("no late line: %v", err)
	}
}
