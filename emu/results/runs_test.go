package results

import (
	"bytes"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

func sampleRuns() []RunResult {
	return []RunResult{
		{Run: Run{ID: "p01-r1", Point: "p01", Repeat: 1, Seed: 1<<53 - 1}, Status: StatusOK, Attempts: 1, DurationS: 60.000123,
			Metrics: map[string]float64{"total.goodput_mbps": 38.123456789012345, "jfi": 0.5, "flow.dc.rtt_p95_ms": math.NaN()}},
		{Run: Run{ID: "p01-r2", Point: "p01", Repeat: 2, Seed: 7}, Status: StatusDegraded, Attempts: 4, DurationS: 61,
			Error:   `emulation degraded: delay_line.late_p99 link1.down 1.5 (limit 0.5 ms); "quoted", and a comma`,
			Metrics: map[string]float64{"total.goodput_mbps": 1e-300, "jfi": 1}},
		{Run: Run{ID: "p02-r1", Point: "p02", Repeat: 1, Seed: 9}, Status: StatusFailed, Attempts: 1, Error: "flow dc: client exited\nexit status 1", Metrics: map[string]float64{}},
		{Run: Run{ID: "p02-r2", Point: "p02", Repeat: 2, Seed: 10}, Status: StatusMissing, Error: "no summary.json in runs/p02-r2", Metrics: map[string]float64{}},
	}
}

var sampleMetrics = []string{"total.goodput_mbps", "flow.dc.rtt_p95_ms", "jfi"}

func sameRuns(a, b []RunResult) bool {
	return slices.EqualFunc(a, b, func(x, y RunResult) bool {
		if x.Run != y.Run || x.Status != y.Status || x.Error != y.Error || x.Attempts != y.Attempts || x.DurationS != y.DurationS {
			return false
		}
		return maps.EqualFunc(x.Metrics, y.Metrics, func(v, w float64) bool { return v == w || (math.IsNaN(v) && math.IsNaN(w)) })
	})
}

// Every figure reads back exactly; a metric a run lacks stays absent and
// a NaN stays NaN.
func TestRunsCSVRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := WriteRunsCSV(&b, sampleRuns(), sampleMetrics); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "run,point,repeat,seed,status,attempts,duration_s,reason,total.goodput_mbps,flow.dc.rtt_p95_ms,jfi\n"+
		"p01-r1,p01,1,9007199254740991,ok,1,60.000123,,38.123456789012344,NaN,0.5\n") {
		t.Errorf("runs.csv starts\n%s", b.String())
	}
	got, err := ReadRunsCSV(&b, "runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := sampleRuns(); !sameRuns(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
	if _, ok := got[1].Metrics["flow.dc.rtt_p95_ms"]; ok {
		t.Errorf("an absent metric reads back as present")
	}
}

func TestRunsCSVErrors(t *testing.T) {
	const header = "run,point,repeat,seed,status,attempts,duration_s,reason,jfi\n"
	for _, c := range []struct{ in, want string }{
		{"", `runs.csv: header: empty file`},
		{"point,run\n", `runs.csv:1: header: "point,run": not the expected header`},
		{"run,point,repeat,seed,status,attempts,duration_s,reason,jfi,jfi\n", `runs.csv:1: header: "jfi": metric column empty or repeated`},
		{header + "p01-r1,p01,1,5,ok,1,60,,0.9\np01-r1,p01,1,5,ok,1,60,,0.9\n", `runs.csv:3: run: "p01-r1": run listed twice`},
		{header + "p01-r1,p01,0,5,ok,1,60,,0.9\n", `runs.csv:2: repeat: "0": out of range`},
		{header + "p01-r1,p01,1,-5,ok,1,60,,0.9\n", `runs.csv:2: seed: "-5": out of range`},
		{header + "p01-r1,p01,1,5,done,1,60,,0.9\n", `runs.csv:2: status: "done": not a status`},
		{header + "p01-r1,p01,1,5,ok,1,NaN,,0.9\n", `runs.csv:2: duration_s: "NaN": out of range`},
		{header + "p01-r1,p01,1,5,ok,1,60,,high\n", `runs.csv:2: jfi: "high": invalid syntax`},
		{header + "p01-r1,p01,1,5,ok,1,60\n", `runs.csv:2: wrong number of fields`},
	} {
		_, err := ReadRunsCSV(strings.NewReader(c.in), "runs.csv")
		var pe *ParseError
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.As(err, &pe) {
			t.Errorf("%q: error %v, want one starting %q", c.in, err, c.want)
		}
	}
}

// FuzzReadRunsCSV: the reader never panics, its errors are located, and
// whatever it accepts writes back to a file it reads the same.
func FuzzReadRunsCSV(f *testing.F) {
	var b bytes.Buffer
	if err := WriteRunsCSV(&b, sampleRuns(), sampleMetrics); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte("run,point,repeat,seed,status,attempts,duration_s,reason\r\na,b,1,0,interrupted,0,0,\"x\r\ny\"\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ReadRunsCSV(bytes.NewReader(data), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		var metrics []string
		for _, r := range rows {
			for m := range r.Metrics {
				if !slices.Contains(metrics, m) {
					metrics = append(metrics, m)
				}
			}
		}
		slices.Sort(metrics)
		var out bytes.Buffer
		if err := WriteRunsCSV(&out, rows, metrics); err != nil {
			t.Fatal(err)
		}
		again, err := ReadRunsCSV(&out, "again")
		if err != nil {
			t.Fatalf("rewritten file does not read: %v\n%s", err, out.String())
		}
		if !sameRuns(rows, again) {
			t.Fatalf("%+v\n%+v after rewriting", rows, again)
		}
	})
}
