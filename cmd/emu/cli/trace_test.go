package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/traces"
)

func runEmu(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func traceInfo(t *testing.T, args ...string) traceInfoJSON {
	t.Helper()
	code, out, errs := runEmu(t, append([]string{"trace", "info", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("emu trace info %v: exit %d: %s", args, code, errs)
	}
	var info traceInfoJSON
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("emu trace info %v printed %q: %v", args, out, err)
	}
	return info
}

// provenanceStat is one number PROVENANCE.md prints for a shipped trace,
// with its precision.
type provenanceStat struct {
	what     string
	value    float64
	decimals int
}

// TestTraceInfoMatchesProvenance runs `emu trace info --json` on every
// shipped trace and compares it with the numbers in traces/PROVENANCE.md.
func TestTraceInfoMatchesProvenance(t *testing.T) {
	rows := []struct {
		args []string
		want []provenanceStat
	}{
		// Raca: one row per second (the default), then the other readings.
		{[]string{"StaticA.csv"}, []provenanceStat{{"duration", 794, 0}, {"mean", 3.855, 3}, {"min", 0.458, 3}, {"max", 15.008, 3}, {"p50", 2.796, 3}, {"up mean", 0.065, 3}, {"up min", 0.009, 3}, {"up max", 0.242, 3}}},
		{[]string{"StaticA.csv", "--duration", "200s"}, []provenanceStat{{"mean", 4.525, 3}}},
		{[]string{"StaticA.csv", "--timestamps", "--duration", "200s"}, []provenanceStat{{"mean", 4.736, 3}}},
		{[]string{"StaticA.csv", "--timestamps"}, []provenanceStat{{"duration", 882, 0}, {"mean", 3.855, 3}}},
		{[]string{"raca4g-static-A-20180127.csv"}, []provenanceStat{{"duration", 856, 0}, {"mean", 5.743, 3}, {"min", 0.123, 3}, {"max", 29.827, 3}, {"p50", 3.976, 3}, {"up mean", 0.093, 3}}},
		{[]string{"raca4g-static-A-20180127.csv", "--duration", "200s"}, []provenanceStat{{"mean", 8.987, 3}}},
		{[]string{"raca4g-static-A-20180127.csv", "--timestamps"}, []provenanceStat{{"duration", 952, 0}, {"mean", 5.707, 3}}},
		{[]string{"raca4g-car-A.csv"}, []provenanceStat{{"duration", 1191, 0}, {"mean", 19.264, 3}, {"min", 0, 0}, {"max", 81.307, 3}, {"p50", 17.793, 3}, {"up mean", 0.361, 3}, {"up max", 1.544, 3}}},
		{[]string{"raca4g-car-A.csv", "--duration", "200s"}, []provenanceStat{{"mean", 20.730, 3}}},
		{[]string{"raca5g-static-B.csv"}, []provenanceStat{{"duration", 1013, 0}, {"mean", 121.021, 3}, {"min", 0, 0}, {"max", 254.071, 3}, {"p50", 150.335, 3}, {"up mean", 0.174, 3}}},
		{[]string{"raca5g-static-B.csv", "--timestamps", "--duration", "200s"}, []provenanceStat{{"mean", 125.032, 3}}},
		{[]string{"raca5g-driving-B.csv"}, []provenanceStat{{"duration", 1741, 0}, {"mean", 39.971, 3}, {"min", 0, 0}, {"max", 389.891, 3}, {"p50", 16.248, 3}, {"up mean", 0.124, 3}}},
		{[]string{"raca5g-driving-B.csv", "--timestamps"}, []provenanceStat{{"duration", 1824, 0}, {"mean", 42.736, 3}}},
		// Mahimahi: the mean and duration at the default 10 ms windows; the
		// per-second min/median/max with 1 s windows over full seconds.
		{[]string{"mahimahi-verizon-lte-short.down"}, []provenanceStat{{"duration", 140, 3}, {"mean", 5.028, 3}, {"up mean", 5.946, 3}}},
		{[]string{"mahimahi-verizon-lte-short.down", "--window", "1s"}, []provenanceStat{{"min", 0.288, 3}, {"p50", 4.302, 3}, {"max", 16.776, 3}, {"up min", 0, 3}, {"up p50", 5.694, 3}, {"up max", 12.948, 3}}},
		{[]string{"mahimahi-tmobile-lte-driving.down"}, []provenanceStat{{"duration", 474.609, 3}, {"mean", 12.770, 3}}},
		{[]string{"mahimahi-tmobile-lte-driving.down", "--window", "1s", "--duration", "474s"}, []provenanceStat{{"min", 0.012, 3}, {"p50", 9.966, 3}, {"max", 59.460, 3}}},
		{[]string{"mahimahi-att-lte-driving.up"}, []provenanceStat{{"duration", 1012.472, 3}, {"mean", 0.834, 3}}},
		{[]string{"mahimahi-att-lte-driving.up", "--window", "1s", "--duration", "1012s"}, []provenanceStat{{"min", 0, 3}, {"p50", 1.044, 3}, {"max", 1.296, 3}}},
		{[]string{"mahimahi-att-lte-driving-2016.down"}, []provenanceStat{{"duration", 120.002, 3}, {"mean", 4.560, 3}}},
		{[]string{"mahimahi-att-lte-driving-2016.down", "--window", "1s", "--duration", "120s"}, []provenanceStat{{"min", 0.228, 3}, {"p50", 3.738, 3}, {"max", 27.552, 3}}},
		// Per-second mmWave logs and cooked traces.
		{[]string{"lumos5g-mmwave-driving-run1.csv"}, []provenanceStat{{"duration", 230, 0}, {"mean", 306.096, 3}, {"min", 0, 0}, {"max", 969, 0}, {"p50", 123.5, 1}}},
		{[]string{"lumos5g-mmwave-driving-run1.csv", "--duration", "200s"}, []provenanceStat{{"mean", 267.680, 3}}},
		{[]string{"5gophers-mmwave-walking.csv"}, []provenanceStat{{"duration", 603, 0}, {"mean", 332.886, 3}, {"min", 0, 0}, {"max", 954, 0}, {"p50", 178, 0}}},
		{[]string{"5gophers-mmwave-walking.csv", "--duration", "200s"}, []provenanceStat{{"mean", 493.072, 3}}},
		{[]string{"norway-hsdpa-bus-1.cooked"}, []provenanceStat{{"duration", 154.76, 2}, {"mean", 2.953, 3}, {"min", 0.375, 3}, {"max", 4.793, 3}}},
		{[]string{"fcc-2016-trace-10730.cooked"}, []provenanceStat{{"duration", 1675, 0}, {"mean", 0.490, 3}, {"min", 0, 0}, {"max", 0.569, 3}}},
		// Synthetic traces (PROVENANCE.md's last section).
		{[]string{"constant-20mbit.csv"}, []provenanceStat{{"duration", 60, 0}, {"mean", 20, 0}, {"up mean", 20, 0}}},
		{[]string{"step-10-30-10mbit.csv"}, []provenanceStat{{"duration", 30, 0}, {"mean", 16.667, 3}, {"min", 10, 0}, {"max", 30, 0}}},
		{[]string{"square-5-25mbit-2s.csv"}, []provenanceStat{{"duration", 20, 0}, {"mean", 15, 0}}},
		{[]string{"outage-10mbit-2s.csv"}, []provenanceStat{{"duration", 12, 0}, {"mean", 8.333, 3}, {"min", 0, 0}}},
		// Starlink: the pair (rate and delay), then its delay file alone.
		{[]string{"starlink-leoreplayer-example.bw"}, []provenanceStat{{"duration", 120.052, 3}, {"mean", 48.744, 3}, {"delay p50", 11, 0}}},
		{[]string{"starlink-leoreplayer-example.delay"}, []provenanceStat{{"delay mean", 10.67, 2}, {"delay min", 7, 0}, {"delay p50", 11, 0}, {"delay max", 68, 0}}},
	}
	covered := map[string]bool{"StaticA.csv": true}
	for _, r := range rows {
		info := traceInfo(t, r.args...)
		covered[r.args[0]] = true
		for _, w := range r.want {
			got, ok := statOf(info, w.what)
			if !ok {
				t.Errorf("%v: no %s in %+v", r.args, w.what, info)
				continue
			}
			if tol := 0.5*math.Pow10(-w.decimals) + 1e-9; math.Abs(got-w.value) > tol {
				t.Errorf("%v: %s = %.6f, PROVENANCE.md says %.*f", r.args, w.what, got, w.decimals, w.value)
			}
			if printed := fmt.Sprintf("%.*f", w.decimals, w.value); !bytes.Contains(traces.Provenance(), []byte(printed)) {
				t.Errorf("%v: %s %s is not in PROVENANCE.md", r.args, w.what, printed)
			}
		}
	}
	for _, info := range traces.List() {
		if !covered[info.Name] && info.Name != traces.Default && info.Name != "mahimahi-verizon-lte-short.up" {
			t.Errorf("shipped trace %s is not checked against PROVENANCE.md", info.Name)
		}
	}
}

func statOf(info traceInfoJSON, what string) (float64, bool) {
	r := info.DownMbps
	if rest, ok := strings.CutPrefix(what, "up "); ok {
		if info.UpMbps == nil {
			return 0, false
		}
		r, what = *info.UpMbps, rest
	}
	if rest, ok := strings.CutPrefix(what, "delay "); ok {
		if info.DelayMs == nil {
			return 0, false
		}
		r, what = *info.DelayMs, rest
	}
	switch what {
	case "duration":
		return info.DurationS, true
	case "mean":
		return r.Mean, true
	case "min":
		return r.Min, true
	case "max":
		return r.Max, true
	case "p50":
		return r.P50, true
	}
	return 0, false
}

// TestTraceInfoShowsDelayJumps: the Starlink pair's info names its delay
// and the 15-second reconfigurations, in text and JSON.
func TestTraceInfoShowsDelayJumps(t *testing.T) {
	code, out, errs := runEmu(t, "trace", "info", "starlink")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"also      delay", "delay ms", "delay jumps above 17.0 ms: 8 times, every 14.99 s (at 8.75, 23.73"} {
		if !strings.Contains(out, want) {
			t.Errorf("emu trace info starlink lacks %q:\n%s", want, out)
		}
	}
	info := traceInfo(t, "starlink")
	if info.DelayJumpPeriodS < 14.9 || info.DelayJumpPeriodS > 15.1 || len(info.DelayJumpsS) < 7 || info.DelayJumpThresholdMs != 17 {
		t.Errorf("jumps %v every %v s above %v ms", info.DelayJumpsS, info.DelayJumpPeriodS, info.DelayJumpThresholdMs)
	}
}

func TestTraceInfoJSONShape(t *testing.T) {
	code, out, _ := runEmu(t, "trace", "info", "--json", "step-10-30-10mbit.csv")
	if code != 0 {
		t.Fatal(code)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range raw {
		keys = append(keys, k)
	}
	if len(raw) != 5 || string(raw["up_mbps"]) != "null" || string(raw["format"]) != `"csv"` || string(raw["steps"]) != "3" {
		t.Errorf("JSON keys %v, up_mbps %s, format %s", keys, raw["up_mbps"], raw["format"])
	}
	var down map[string]float64
	json.Unmarshal(raw["down_mbps"], &down)
	want := map[string]float64{"mean": 50.0 / 3, "min": 10, "max": 30, "p5": 10, "p50": 10, "p95": 30}
	for k, v := range want {
		if math.Abs(down[k]-v) > 1e-9 {
			t.Errorf("down_mbps.%s = %v, want %v", k, down[k], v)
		}
	}
	if len(down) != len(want) {
		t.Errorf("down_mbps has %v", down)
	}
}

func TestTraceInfoHuman(t *testing.T) {
	code, out, errs := runEmu(t, "trace", "info", "StaticA")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"raca4g-static-A.csv", "format    raca", "duration  794 s", "steps     794", "down", "3.855", "15.008", "up", "0.065"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestTraceBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{file("empty.csv", "")}, 1, "empty.csv:1: trace is empty"},
		{[]string{file("nocol.csv", "Timestamp,UL_bitrate\n")}, 1, "nocol.csv:1: DL_bitrate: column not found in header"},
		{[]string{file("unknown.csv", "a,b\n1,2\n")}, 1, "unknown.csv:1: unknown trace format"},
		{[]string{file("nocol2.csv", "Timestamp,UL_bitrate\n"), "--format", "raca"}, 1, "nocol2.csv:1: DL_bitrate: column not found in header"},
		{[]string{file("back.csv", "time_s,down_mbps\n0,1\n5,1\n3,1\n")}, 1, `back.csv:4: time_s: "3": time goes backwards`},
		{[]string{file("neg.down", "0\n5\n-7\n")}, 1, `neg.down:3: time: "-7": negative value`},
		{[]string{file("neg.csv", "0,1\n1,-2\n2,1\n")}, 1, `neg.csv:2: down_mbps: "-2": negative value`},
		{[]string{file("nan.cooked", "0 1\n1 lots\n")}, 1, `nan.cooked:2: rate: "lots": invalid syntax`},
		{[]string{file("col.csv", "t,v\n0,1\n1,x\n"), "--time-col", "t", "--down-col", "v"}, 1, `col.csv:3: v: "x": invalid syntax`},
		{[]string{"no-such-trace"}, 1, "not a file, nor a shipped trace (shipped: 5gophers-mmwave-walking.csv"},
		{[]string{"StaticA.csv", "--format", "pcap"}, 2, "unknown trace format"},
		{[]string{"StaticA.csv", "--window", "1500us"}, 2, "--window"},
		{[]string{"StaticA.csv", "--offset", "1h"}, 2, "offset"},
		{[]string{"StaticA.csv", "--rate-scale", "-1"}, 2, "rate-scale"},
		{[]string{"StaticA.csv", "--time-scale", "0"}, 2, "time-scale"},
		{[]string{"StaticA.csv", "--time-col", "x"}, 2, "need --down-col"},
		{[]string{}, 2, "accepts 1 arg"},
	} {
		code, out, errs := runEmu(t, append([]string{"trace", "info"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.msg) || !strings.HasPrefix(errs, "emu: ") {
			t.Errorf("emu trace info %v: exit %d, stderr %q; want exit %d and %q", c.args, code, errs, c.code, c.msg)
		}
		if out != "" {
			t.Errorf("emu trace info %v printed %q on stdout", c.args, out)
		}
	}
}

func TestTraceConvert(t *testing.T) {
	dir := t.TempDir()
	// CSV: the converted file reads back with the same statistics.
	csvPath := filepath.Join(dir, "statica.csv")
	if code, _, errs := runEmu(t, "trace", "convert", "StaticA.csv", "--to", "csv", "-o", csvPath); code != 0 {
		t.Fatalf("convert to csv: exit %d: %s", code, errs)
	}
	orig, conv := traceInfo(t, "StaticA.csv"), traceInfo(t, csvPath)
	if conv.Format != "csv" || conv.Steps != orig.Steps || conv.DurationS != orig.DurationS ||
		math.Abs(conv.DownMbps.Mean-orig.DownMbps.Mean) > 1e-9 || conv.UpMbps == nil || math.Abs(conv.UpMbps.Max-orig.UpMbps.Max) > 1e-9 {
		t.Errorf("converted CSV reads as %+v, original %+v", conv, orig)
	}
	// To stdout, after a cut.
	code, out, _ := runEmu(t, "trace", "convert", "step-10-30-10mbit.csv", "--to", "csv", "--offset", "5s", "--duration", "10s")
	if want := "time_s,down_mbps\n0,10\n5,30\n10,30\n"; code != 0 || out != want {
		t.Errorf("convert to stdout: exit %d, %q; want %q", code, out, want)
	}
	// Mahimahi: the direction follows the extension; the pair reads back
	// as the same trace.
	for _, dirn := range []string{"down", "up"} {
		p := filepath.Join(dir, "verizon."+dirn)
		if code, _, errs := runEmu(t, "trace", "convert", "mahimahi-verizon-lte-short", "--to", "mahimahi", "-o", p); code != 0 {
			t.Fatalf("convert to mahimahi: exit %d: %s", code, errs)
		}
	}
	orig, conv = traceInfo(t, "mahimahi-verizon-lte-short.down"), traceInfo(t, filepath.Join(dir, "verizon.down"))
	if conv.Format != "mahimahi" || conv.DurationS != 140 || conv.UpMbps == nil ||
		math.Abs(conv.DownMbps.Mean-orig.DownMbps.Mean) > 0.001 || math.Abs(conv.UpMbps.Mean-orig.UpMbps.Mean) > 0.001 {
		t.Errorf("converted Mahimahi pair reads as %+v, original %+v", conv, orig)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"StaticA.csv"}, 2, `--to ""`},
		{[]string{"StaticA.csv", "--to", "pcap"}, 2, "want csv or mahimahi"},
		{[]string{"StaticA.csv", "--to", "mahimahi", "--dir", "sideways"}, 2, "want down or up"},
		{[]string{"step-10-30-10mbit.csv", "--to", "mahimahi", "--dir", "up"}, 1, "no uplink"},
		{[]string{"StaticA.csv", "--to", "csv", "-o", filepath.Join(dir, "missing", "x.csv")}, 1, "no such file"},
	} {
		code, _, errs := runEmu(t, append([]string{"trace", "convert"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("emu trace convert %v: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.msg)
		}
	}
}

func TestTracePlot(t *testing.T) {
	dir := t.TempDir()
	svg, png := filepath.Join(dir, "a.svg"), filepath.Join(dir, "a.png")
	if code, out, errs := runEmu(t, "trace", "plot", "StaticA.csv", "-o", svg); code != 0 || !strings.Contains(out, svg) {
		t.Fatalf("plot svg: exit %d: %s %s", code, out, errs)
	}
	b, _ := os.ReadFile(svg)
	for _, want := range []string{"<svg", "raca4g-static-A.csv", "time (s)", "capacity (Mbit/s)"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if code, _, errs := runEmu(t, "trace", "plot", "square-5-25mbit-2s.csv", "-o", png, "--title", "square"); code != 0 {
		t.Fatalf("plot png: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(png); !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Error("not a PNG")
	}
	for _, args := range [][]string{{"StaticA.csv"}, {"StaticA.csv", "-o", filepath.Join(dir, "a.gif")}} {
		if code, _, _ := runEmu(t, append([]string{"trace", "plot"}, args...)...); code != 2 {
			t.Errorf("plot %v: exit %d, want 2", args, code)
		}
	}
	if code, _, _ := runEmu(t, "trace", "plot", "nope.csv", "-o", filepath.Join(dir, "b.svg")); code != 1 {
		t.Errorf("plot of a missing trace: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.svg")); err == nil {
		t.Error("failed plot left a file")
	}
}

func TestTraceList(t *testing.T) {
	code, out, errs := runEmu(t, "trace", "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, info := range traces.List() {
		if !strings.Contains(out, info.Name) {
			t.Errorf("list lacks %s", info.Name)
		}
	}
	if !strings.Contains(out, "raca4g-static-A.csv (default)") || !strings.Contains(out, "3.855 Mbit/s") {
		t.Errorf("list does not mark the default trace with its mean:\n%s", out)
	}
	code, out, _ = runEmu(t, "trace", "list", "--json")
	var rows []traceListJSON
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil || len(rows) != len(traces.List()) {
		t.Fatalf("list --json: exit %d, %v, %d rows", code, err, len(rows))
	}
}

// TestTraceInfoUpLoss: a trace with down_loss and up_loss reports each
// direction's loss, as it does each direction's delay.
func TestTraceInfoUpLoss(t *testing.T) {
	p := filepath.Join(t.TempDir(), "split.csv")
	if err := os.WriteFile(p, []byte("time_s,down_mbps,down_loss,up_loss\n0,10,0.01,0.2\n1,10,0.03,0.2\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info := traceInfo(t, p)
	if info.LossPct == nil || info.UpLossPct == nil || math.Abs(info.LossPct.Mean-2) > 1e-9 || math.Abs(info.UpLossPct.Mean-20) > 1e-9 {
		t.Errorf("loss_pct %+v, up_loss_pct %+v; want means 2 and 20", info.LossPct, info.UpLossPct)
	}
	code, out, errs := runEmu(t, "trace", "info", p)
	if code != 0 || !strings.Contains(out, "up loss %") || !strings.Contains(out, "20.000") {
		t.Errorf("exit %d (%s), output lacks the uplink's loss:\n%s", code, errs, out)
	}
	// One loss column: no up_loss_pct.
	if info := traceInfo(t, "step-10-30-10mbit.csv"); info.UpLossPct != nil {
		t.Errorf("up_loss_pct %+v for a trace without loss", info.UpLossPct)
	}
}
