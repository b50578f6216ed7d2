package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const analyzeTestdata = "../../../analysis/testdata"

func runAnalyze(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), append([]string{"analyze"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// copyFixture copies a fixture directory from analysis/testdata, since
// analyze writes analysis.json and plots into it.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(analyzeTestdata, name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestAnalyzeRunDir(t *testing.T) {
	run := copyFixture(t, "run-fairness")
	code, out, errs := runAnalyze(t, run)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errs)
	for _, want := range []string{
		"run 20261130T010203Z-fairness: scenario fairness, status ok, seed 1234567, 20.0 s",
		"flow  goodput", "dc    15.18", "sc2     4.91", // tabwriter aligns right
		"94.7       31  0 (0.00%)         2097152", // dc: max cwnd kB, lost, reordered, bytes
		"JFI 0.855 over the flows' goodput",
		"link1 down", "link utilization: down ",
		"PDCP down: 1873 repairs",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	// analysis.json is written into the run and has the required keys.
	var ra struct {
		JFI   float64 `json:"jfi"`
		Flows []map[string]any
	}
	b, err := os.ReadFile(filepath.Join(run, "analysis.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ra); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"bytes_received", "packets_lost", "max_cwnd_bytes", "mean_srtt_ms", "p95_srtt_ms", "reordered_packets", "goodput_mbps"} {
		if _, ok := ra.Flows[0][key]; !ok {
			t.Errorf("analysis.json flows[0] lacks %s", key)
		}
	}
	if ra.Flows[0]["bytes_received"] != 2097152.0 || ra.Flows[0]["packets_lost"] != 31.0 || ra.JFI < 0.85 || ra.JFI > 0.86 {
		t.Errorf("analysis.json: jfi %v, dc %v", ra.JFI, ra.Flows[0])
	}
	// Plots in <run>/plots, SVG and PNG.
	for _, name := range []string{"throughput", "utilization", "congestion-dc-server", "congestion-sc1-server"} {
		for _, ext := range []string{".svg", ".png"} {
			if fi, err := os.Stat(filepath.Join(run, "plots", name+ext)); err != nil || fi.Size() < 1000 {
				t.Errorf("plot %s%s: %v", name, ext, err)
			}
		}
	}
}

func TestAnalyzeRunJSONAndOptions(t *testing.T) {
	run := copyFixture(t, "run-fairness")
	plots := filepath.Join(t.TempDir(), "figs")
	qvis := filepath.Join(t.TempDir(), "qvis")
	out := filepath.Join(t.TempDir(), "a.json")
	code, stdout, errs := runAnalyze(t, run, "--json", "--plot", plots, "--export-qvis", qvis, "--out", out, "--bin", "5ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var ra struct {
		Flows []struct {
			Name          string
			BytesReceived *int64 `json:"bytes_received"`
		}
		Qlogs []struct {
			BinMs float64 `json:"bin_ms"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &ra); err != nil {
		t.Fatalf("--json printed %q: %v", stdout, err)
	}
	if len(ra.Flows) != 3 || *ra.Flows[0].BytesReceived != 2097152 || ra.Flows[2].BytesReceived != nil || ra.Qlogs[0].BinMs != 5 {
		t.Errorf("JSON %+v", ra)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("--out: %v", err)
	}
	if _, err := os.Stat(filepath.Join(run, "analysis.json")); err == nil {
		t.Error("analysis.json written into the run despite --out")
	}
	if _, err := os.Stat(filepath.Join(plots, "throughput.png")); err != nil {
		t.Errorf("--plot: %v", err)
	}
	if _, err := os.Stat(filepath.Join(run, "plots")); err == nil {
		t.Error("plots written into the run despite --plot")
	}
	b, err := os.ReadFile(filepath.Join(qvis, "dc-server.sqlog"))
	if err != nil {
		t.Fatal(err)
	}
	first := b[1:bytes.IndexByte(b, '\n')]
	if !bytes.Contains(first, []byte(`"time_format":"relative"`)) || !bytes.Contains(first, []byte(`"reference_time":1795997182215.955868`)) {
		t.Errorf("qvis header %s", first)
	}
	if !strings.Contains(errs, "qvis:") || !strings.Contains(errs, "header converted") {
		t.Errorf("stderr %q", errs)
	}
}

func TestAnalyzeQlogFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "quicgo-client.sqlog")
	data, err := os.ReadFile(filepath.Join(analyzeTestdata, "quicgo-client.sqlog"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runAnalyze(t, src)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Logf("\n%s", out)
	for _, want := range []string{"quic-go v0.65.0 client, 1820 events", "bytes received  2097152 B", "goodput         642.1 Mbit/s",
		"0 of 1520 1-RTT packets"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("analyze wrote next to the qlog file: %v", entries)
	}
	plots := filepath.Join(dir, "p")
	code, _, errs = runAnalyze(t, src, "--plot", plots, "--bin", "2ms")
	if code != 0 {
		t.Fatalf("--plot: exit %d: %s", code, errs)
	}
	for _, f := range []string{"congestion-quicgo-client.svg", "goodput-quicgo-client.png"} {
		if _, err := os.Stat(filepath.Join(plots, f)); err != nil {
			t.Error(err)
		}
	}
	// --export-qvis into the file's own directory would overwrite it.
	if code, _, errs = runAnalyze(t, src, "--export-qvis", dir); code != 2 || !strings.Contains(errs, "would overwrite") {
		t.Errorf("export onto itself: exit %d, %s", code, errs)
	}
}

func TestAnalyzeTruncatedAndBadQlog(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(analyzeTestdata, "quicgo-server.sqlog"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.sqlog")
	os.WriteFile(cut, data[:457910], 0o644)
	code, out, errs := runAnalyze(t, cut)
	if code != 0 || !strings.Contains(errs, "emu: warning: "+cut+":1905: byte 457859: last record is cut short") ||
		!strings.Contains(out, "1903 events") || !strings.Contains(out, "cut short") {
		t.Errorf("truncated: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	empty := filepath.Join(dir, "empty.sqlog")
	os.WriteFile(empty, nil, 0o644)
	if code, _, errs := runAnalyze(t, empty); code != 1 || errs != "emu: "+empty+":1: byte 0: empty file, no qlog header\n" {
		t.Errorf("empty: exit %d, %q", code, errs)
	}
	csv := filepath.Join(dir, "x.csv")
	os.WriteFile(csv, []byte("t_s,bytes\n1,2\n"), 0o644)
	if code, _, errs := runAnalyze(t, csv); code != 1 || !strings.Contains(errs, csv+":1: byte 0: not a JSON-SEQ qlog file") {
		t.Errorf("csv: exit %d, %q", code, errs)
	}
}

func TestAnalyzeSweepDir(t *testing.T) {
	sweep := copyFixture(t, "sweep")
	code, out, errs := runAnalyze(t, sweep)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Logf("\n%s\n%s", out, errs)
	for _, want := range []string{"sweep: 2 points, 6 runs (1 failed, 1 missing, 4 ok); varied dc.batch",
		"p01", "14.5 ± 5.1", "16.6 ± 5.1", "1.000 ± 0.000", "170 ± 127", "left out: p01-r3 (missing)", "left out: p02-r2 (failed) server exited with status 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	var sa struct {
		Points []struct {
			ID      string
			Metrics map[string]struct {
				Mean float64
				N    int
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(sweep, "analysis.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sa); err != nil {
		t.Fatal(err)
	}
	if m := sa.Points[1].Metrics["flow.dc.goodput_mbps"]; m.N != 2 || m.Mean != 16.6 {
		t.Errorf("p02 goodput %+v", m)
	}
	if _, err := os.Stat(filepath.Join(sweep, "runs", "p01-r1", "analysis.json")); err != nil {
		t.Errorf("run analysis.json: %v", err)
	}
}

func TestAnalyzeUsage(t *testing.T) {
	run := copyFixture(t, "run-fairness")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "analyze takes one PATH"},
		{[]string{run, "--bin", "0s"}, 2, "--bin 0s: want a positive duration"},
		{[]string{run, "--plot", "x", "--no-plot"}, 2, "contradict"},
		{[]string{filepath.Join(run, "nope")}, 1, "no such file or directory"},
		{[]string{t.TempDir()}, 1, "neither a run directory"},
		{[]string{copyFixture(t, "sweep"), "--plot", "x"}, 2, "not a sweep"},
	}
	for _, c := range cases {
		code, _, errs := runAnalyze(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("analyze %v: exit %d %q, want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}
