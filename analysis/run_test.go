package analysis

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/stats"
)

func TestAnalyzeRunFairnessFixture(t *testing.T) {
	ra := fairnessRun(t)
	if ra.Run != "20261130T010203Z-fairness" || ra.Status != "ok" || ra.Seed != "1234567" {
		t.Errorf("run %q status %q seed %q", ra.Run, ra.Status, ra.Seed)
	}
	if len(ra.Flows) != 3 || ra.Flows[0].Name != "dc" || ra.Flows[1].Name != "sc1" || ra.Flows[2].Name != "sc2" {
		t.Fatalf("flows %+v", ra.Flows)
	}
	dc, sc1, sc2 := ra.Flows[0], ra.Flows[1], ra.Flows[2]
	// dc: quic-go sample (client received the download, server sent it).
	if dc.GoodputMbps != 15.184 || dc.GoodputSource != "summary" {
		t.Errorf("dc goodput %v from %s, want 15.184 from summary", dc.GoodputMbps, dc.GoodputSource)
	}
	if dc.ReceiverQlog != "qlog/dc-client.sqlog" || dc.SenderQlog != "qlog/dc-server.sqlog" {
		t.Errorf("dc roles: receiver %s sender %s", dc.ReceiverQlog, dc.SenderQlog)
	}
	server := analyzeFile(t, "testdata/quicgo-server.sqlog", QlogOptions{})
	if *dc.BytesReceived != 2097152 || *dc.PacketsLost != 31 || *dc.MaxCwndBytes != server.Totals.MaxCwndBytes ||
		dc.MeanSRTTMs != server.Totals.MeanSRTTMs || dc.P95SRTTMs != server.Totals.P95SRTTMs || *dc.ReorderedPackets != 0 {
		t.Errorf("dc qlog figures %+v", dc)
	}
	// sc1: ngtcp2 sample.
	if *sc1.BytesReceived != 2097231 || *sc1.PacketsLost != 28 || *sc1.MaxCwndBytes != 146500 {
		t.Errorf("sc1: bytes %d lost %d cwnd %d, want 2097231, 28, 146500", *sc1.BytesReceived, *sc1.PacketsLost, *sc1.MaxCwndBytes)
	}
	// sc2: TCP, no qlog: unknown, not zero.
	if sc2.BytesReceived != nil || sc2.PacketsLost != nil || sc2.MeanSRTTMs.Valid() || sc2.GoodputMbps != 4.905 {
		t.Errorf("sc2 (no qlog) %+v", sc2)
	}
	wantJFI := stats.JFI([]float64{15.184, 10.484, 4.905})
	if math.Abs(float64(ra.JFI)-wantJFI) > 1e-12 || math.Abs(wantJFI-0.8547) > 1e-4 {
		t.Errorf("jfi %v, want %v (summary.json says 0.8547)", ra.JFI, wantJFI)
	}
	// All three flows are active from 4.0 s (sc2 starts) to 18.0 s.
	if !ra.JFIActive.Valid() || ra.ActiveWindowS[0] != 4 || math.Abs(float64(ra.ActiveWindowS[1])-18) > 1e-9 {
		t.Errorf("jfi_active %v over %v", ra.JFIActive, ra.ActiveWindowS)
	}
	if len(ra.Links) != 4 || ra.Links[0].Name != "link1" || ra.Links[0].Source != "summary" {
		t.Errorf("links %+v", ra.Links)
	}
	var capDown, thrDown float64
	for _, l := range ra.Links {
		if l.Dir == "down" {
			capDown += float64(l.CapacityMbps)
			thrDown += float64(l.ThroughputMbps)
		}
	}
	if u := ra.Utilization["down"]; math.Abs(float64(u)-thrDown/capDown) > 1e-12 || !(u > 0.5 && u < 1) {
		t.Errorf("down utilization %v, want %v", u, thrDown/capDown)
	}
	if p := ra.PDCP["down"]; p.Repairs != 1873 || p.ExpiredDeliveries != 12 || p.Source != "summary" {
		t.Errorf("pdcp %+v", p)
	}
	if len(ra.Qlogs) != 4 || len(ra.Warnings) != 0 {
		t.Errorf("%d qlogs, warnings %q", len(ra.Qlogs), ra.Warnings)
	}
	b, err := json.Marshal(ra)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"bytes_received":2097152`, `"packets_lost":31`, `"max_cwnd_bytes":`, `"mean_srtt_ms":`,
		`"p95_srtt_ms":`, `"reordered_packets":0`, `"goodput_mbps":15.184`, `"jfi":0.854`, `"repairs":1873`, `"packets_lost":null`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("analysis.json lacks %s", key)
		}
	}
}

func TestAnalyzeRunWithoutSummary(t *testing.T) {
	qlog := mustRead(t, "quicgo-client.sqlog")
	fsys := fstest.MapFS{
		"qlog/dc-client.sqlog": {Data: qlog},
		"flows/dc.csv":         {Data: []byte("t_s,bytes\n0.5,1000\n2.0,2097152\n")},
		"timeseries.csv":       {Data: []byte("t_s,flow.dc.goodput_mbps,link1.down.capacity_mbps,link1.down.throughput_mbps\n0.1,5,10,6\n0.2,,10,8\n")},
	}
	ra, err := AnalyzeRun(fsys, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ra.Flows) != 1 || ra.Flows[0].GoodputSource != "flows_csv" || math.Abs(float64(ra.Flows[0].GoodputMbps)-2097152*8/2.0/1e6) > 1e-9 {
		t.Errorf("flows %+v", ra.Flows)
	}
	// Only the client qlog: it is both receiver and (lacking a server file) sender.
	if *ra.Flows[0].BytesReceived != 2097152 {
		t.Errorf("bytes %v", *ra.Flows[0].BytesReceived)
	}
	if len(ra.Links) != 1 || ra.Links[0].Source != "timeseries" || float64(ra.Links[0].Utilization) != 0.7 {
		t.Errorf("links from timeseries %+v", ra.Links)
	}
	if len(ra.Warnings) == 0 || !strings.Contains(ra.Warnings[0], "no summary.json") {
		t.Errorf("warnings %q", ra.Warnings)
	}
}

func TestAnalyzeRunTruncatedQlogIsAWarning(t *testing.T) {
	q := mustRead(t, "quicgo-server.sqlog")
	fsys := fstest.MapFS{"qlog/dc-server.sqlog": {Data: q[:len(q)/2+17]}}
	ra, err := AnalyzeRun(fsys, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ra.Warnings) < 2 || !strings.Contains(ra.Warnings[1], "qlog/dc-server.sqlog:1905: byte 457859:") || !strings.Contains(ra.Warnings[1], "cut short") {
		t.Errorf("warnings %q", ra.Warnings)
	}
	if ra.Qlogs[0].Truncated == "" || ra.Qlogs[0].Totals.PacketsSent == 0 {
		t.Errorf("partial qlog %+v", ra.Qlogs[0].Totals)
	}
}

func TestAnalyzeRunBadFiles(t *testing.T) {
	cases := map[string]struct {
		fsys fstest.MapFS
		want string
	}{
		"summary syntax":    {fstest.MapFS{"summary.json": {Data: []byte("{\n  \"run\": \"x\",\n  \"flows\": [\n}")}}, "summary.json:4:1: invalid character '}'"},
		"summary type":      {fstest.MapFS{"summary.json": {Data: []byte("{\"flows\": [{\"name\": \"dc\", \"bytes\": \"many\"}]}")}}, "summary.json:1:"},
		"timeseries number": {fstest.MapFS{"timeseries.csv": {Data: []byte("t_s,flow.dc.goodput_mbps\n0.1,1\n0.2,fast\n")}}, "timeseries.csv:3: flow.dc.goodput_mbps: \"fast\" is not a number"},
		"timeseries header": {fstest.MapFS{"timeseries.csv": {Data: []byte("time,x\n")}}, "timeseries.csv:1: first column"},
		"timeseries fields": {fstest.MapFS{"timeseries.csv": {Data: []byte("t_s,a,b\n0.1,1\n")}}, "timeseries.csv:2: wrong number of fields"},
		"timeseries time":   {fstest.MapFS{"timeseries.csv": {Data: []byte("t_s,a\n0.2,1\n0.1,1\n")}}, "timeseries.csv:3: t_s: 0.1 does not increase"},
		"flow csv":          {fstest.MapFS{"qlog/x.sqlog": {Data: mustRead(t, "ngtcp2-client.qlog")}, "flows/dc.csv": {Data: []byte("t_s,bytes\n1,10\n2,5\n")}}, "flows/dc.csv:3: cumulative bytes or time decrease"},
		"corrupt qlog":      {fstest.MapFS{"qlog/dc-client.sqlog": {Data: []byte("\x1e{\"qlog_version\":\"0.3\",\"trace\":{}}\n\x1e{\"time\":1,\"name\":\"transport:packet_received\",\"data\":{\"raw\":{\"length\":-}}}\n\x1e{}\n")}}, "qlog/dc-client.sqlog:2: byte 106: data.raw.length: expected a number, found '}'"},
		"not a run":         {fstest.MapFS{"README": {Data: []byte("hi")}}, "not a run directory"},
	}
	for name, c := range cases {
		_, err := AnalyzeRun(c.fsys, RunOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, c.want)
		}
	}
}

// TestAnalyzeRunGzippedQlogs: a run whose qlogs a sweep compressed
// (results.QlogsGzip) analyzes to the same figures as the plain one.
func TestAnalyzeRunGzippedQlogs(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/run-fairness")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := results.QlogsGzip.Apply(dir); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "qlog", "*.sqlog.gz")); len(m) != 4 {
		t.Fatalf("gzipped qlogs %v, want 4", m)
	}
	gz, err := AnalyzeRun(os.DirFS(dir), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plain := fairnessRun(t)
	if len(gz.Qlogs) != 4 || len(gz.Warnings) != 0 {
		t.Fatalf("%d qlogs, warnings %q", len(gz.Qlogs), gz.Warnings)
	}
	for i := range plain.Flows {
		p, g := plain.Flows[i], gz.Flows[i]
		if g.ReceiverQlog != "" {
			g.ReceiverQlog = strings.TrimSuffix(g.ReceiverQlog, ".gz")
		}
		if g.SenderQlog != "" {
			g.SenderQlog = strings.TrimSuffix(g.SenderQlog, ".gz")
		}
		pj, _ := json.Marshal(p)
		gj, _ := json.Marshal(g)
		if string(pj) != string(gj) || i < 2 && !g.MeanSRTTMs.Valid() {
			t.Errorf("flow %s gzipped:\n%s\nplain:\n%s", p.Name, gj, pj)
		}
	}
}
