package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

// TestJitterRFC3550 follows the estimator through a worked example:
// datagrams sent every 20 ms (S = 0, 20, 40, 60 ms) arrive at R = 100,
// 125, 140, 165 ms, so the transit times are 100, 105, 100, 105 ms and
// D = +5, −5, +5 ms:
//
//	J1 = 0      + (5 − 0)/16      = 0.3125 ms
//	J2 = 0.3125 + (5 − 0.3125)/16 = 0.60546875 ms
//	J3 = J2     + (5 − J2)/16     = 0.880126953125 ms
func TestJitterRFC3550(t *testing.T) {
	var j Jitter
	want := []float64{0, 0.3125, 0.60546875, 0.880126953125}
	for i, r := range []time.Duration{100, 125, 140, 165} {
		j.Add(time.Duration(i)*20*ms, r*ms)
		if got := float64(j.Value()) / 1e6; math.Abs(got-want[i]) > 1e-6 {
			t.Errorf("after arrival %d: J = %.9f ms, want %.9f", i+1, got, want[i])
		}
	}
	// A constant transit time has no jitter, whatever the spacing.
	var flat Jitter
	for i := range 100 {
		flat.Add(time.Duration(i*i)*ms, time.Duration(i*i)*ms+30*ms)
	}
	if flat.Value() != 0 {
		t.Errorf("constant transit: J = %v", flat.Value())
	}
	if allocs := testing.AllocsPerRun(100, func() { j.Add(ms, 2*ms) }); allocs != 0 {
		t.Errorf("Add allocates %.0f times", allocs)
	}
}

func TestSummarizeCBR(t *testing.T) {
	// Ten sent; 3 lost (4, 5, 9), 6 arrives late after 7, 2 arrives twice.
	var pkts []CBRPacket
	for i, seq := range []uint32{0, 1, 2, 3, 7, 6, 8, 2} {
		pkts = append(pkts, CBRPacket{Seq: seq, Sent: time.Duration(seq) * 20 * ms, Recv: time.Duration(seq)*20*ms + time.Duration(10+i)*ms})
	}
	st := SummarizeCBR(pkts, 10)
	if st.Sent != 10 || st.Received != 7 || st.Duplicates != 1 || st.Reordered != 1 || math.Abs(st.Loss-0.3) > 1e-9 {
		t.Errorf("counts %+v", st)
	}
	if !st.OWDOK || st.OWD.N != 7 || st.OWD.P50 != 13 || st.OWD.Max != 16 {
		t.Errorf("owd %+v", st.OWD)
	}
	if st.JitterMs <= 0 {
		t.Errorf("jitter %v", st.JitterMs)
	}
	if st := SummarizeCBR(nil, 0); st.Loss != 0 || st.OWDOK {
		t.Errorf("nothing sent: %+v", st)
	}
}

func TestRRLogRoundTrip(t *testing.T) {
	rows := []RRRow{
		{T: 1500 * ms, Latency: 20123 * time.Microsecond},
		{T: 1600 * ms, Latency: 41 * ms, Handshake: 20500 * time.Microsecond, NewConn: true},
	}
	b := writeLog(t, NewRRWriter, rows)
	if want := "t_s,latency_ms,handshake_ms\n1.500000,20.123,\n1.600000,41.000,20.500\n"; b.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", b.String(), want)
	}
	got, err := ReadRR(b, "x.rr.csv")
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	lat, ok, hs := SummarizeRR(got)
	if !ok || lat.N != 2 || lat.Max != 41 || hs == nil || hs.N != 1 || hs.P50 != 20.5 {
		t.Errorf("summary %+v %v %+v", lat, ok, hs)
	}
	_, err = ReadRR(strings.NewReader(RRHeader+"\n1.0,2.0,\n1.0,x,\n"), "bad.csv")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || pe.Field != "latency_ms" {
		t.Errorf("bad latency: %v", err)
	}
}

func TestCBRLogRoundTrip(t *testing.T) {
	pkts := []CBRPacket{{Seq: 0, Sent: 100 * ms, Recv: 110 * ms}, {Seq: 2, Sent: 140 * ms, Recv: 170 * ms}, {Seq: 1, Sent: 120 * ms, Recv: 170 * ms}}
	b := writeLog(t, NewCBRWriter, pkts)
	if !strings.Contains(b.String(), "\n2,0.140000,0.170000,30.000\n") {
		t.Errorf("log:\n%s", b.String())
	}
	got, err := ReadCBR(b, "x.cbr.csv")
	if err != nil || !reflect.DeepEqual(got, pkts) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	_, err = ReadCBR(strings.NewReader(CBRHeader+"\n0,0.1,0.2,100\n1,0.1,0.15,50\n"), "back.csv")
	if !errors.Is(err, ErrBackwards) {
		t.Errorf("arrivals going back: %v", err)
	}
	w := NewCBRWriter(b)
	if allocs := testing.AllocsPerRun(100, func() { w.Write(pkts[1]) }); allocs != 0 {
		t.Errorf("Write allocates %.0f times", allocs)
	}
}

func TestObjectsLogAndResults(t *testing.T) {
	rows := []ObjectRow{
		{Index: 1, Size: 1e6, Start: 2 * time.Second, FCT: 800 * ms, Bytes: 1e6},
		{Index: 0, Size: 500e3, Start: time.Second, FCT: 1000 * ms, Bytes: 500e3, Handshake: 600 * ms, NewConn: true, Resumed: true, ZeroRTT: true},
		{Index: 2, Size: 10e6, Start: 3 * time.Second, FCT: 50 * ms, Bytes: 4e6, Handshake: 1200 * ms, NewConn: true, Resumed: true, Fallback: true},
	}
	b := writeLog(t, NewObjectsWriter, rows)
	got, err := ReadObjects(b, "x.objects.csv")
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	objs, fct, ok := ObjectResults(got, func(from, to time.Duration) float64 { return 50 })
	if len(objs) != 3 || objs[0].Index != 0 || objs[1].Index != 1 || objs[2].Complete {
		t.Fatalf("objects %+v", objs)
	}
	if o := objs[1]; o.GoodputMbps != 10 || o.Utilization != 0.2 || o.HandshakeMs != nil {
		t.Errorf("1 MB in 0.8 s over 50 Mbit/s: %+v", o)
	}
	if o := objs[0]; o.HandshakeMs == nil || *o.HandshakeMs != 600 || !o.ZeroRTT {
		t.Errorf("first object %+v", o)
	}
	if !ok || fct.N != 2 || fct.Max != 1 {
		t.Errorf("fct of the complete objects %+v", fct)
	}
	if o := objs[2]; !o.Fallback || objs[0].Fallback {
		t.Errorf("fallback: %+v, %+v", o, objs[0])
	}
	// A log written before the fallback column still reads.
	old, err := ReadObjects(strings.NewReader(objectsHeaderV1+"\n0,1,0,0.5,1,600,1,1\n"), "old.csv")
	if err != nil || len(old) != 1 || !old[0].ZeroRTT || old[0].Fallback {
		t.Errorf("old log: %+v, %v", old, err)
	}
	_, err = ReadObjects(strings.NewReader(ObjectsHeader+"\n0,1,0,0,1,,2,0,0\n"), "o.csv")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Field != "resumed" || pe.Line != 2 {
		t.Errorf("resumed=2: %v", err)
	}
}

// TestWorkloadJSON checks the names summary.json gives a cbr flow's
// figures: owd_ms in particular must be the flow's own field, not hidden
// behind another of the same name.
func TestWorkloadJSON(t *testing.T) {
	j, loss := 1.5, 0.01
	f := FlowResult{Name: "voip", OWDMs: &DelayStats{P50: 10, N: 3}, FlowWorkload: FlowWorkload{Kind: "cbr", Direction: "down", JitterMs: &j, Loss: &loss}}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	owd, _ := m["owd_ms"].(map[string]any)
	if m["kind"] != "cbr" || owd["p50"] != 10.0 || m["jitter_ms"] != 1.5 || m["loss"] != 0.01 {
		t.Errorf("summary flow %s", b)
	}
	if _, ok := m["latency_ms"]; ok {
		t.Errorf("a cbr flow has latency_ms: %s", b)
	}
}

func FuzzReadWorkloadLogs(f *testing.F) {
	f.Add(RRHeader + "\n1.0,2.0,\n")
	f.Add(CBRHeader + "\n0,0.1,0.2,100\n")
	f.Add(ObjectsHeader + "\n0,1,0,0,1,,0,0,1\n")
	f.Add(CBRHeader + "\n4294967296,1,1,0\n")
	f.Fuzz(func(t *testing.T, s string) {
		if rows, err := ReadRR(strings.NewReader(s), "f"); err == nil {
			SummarizeRR(rows)
		}
		if pkts, err := ReadCBR(strings.NewReader(s), "f"); err == nil {
			SummarizeCBR(pkts, int64(len(pkts)))
		}
		if rows, err := ReadObjects(strings.NewReader(s), "f"); err == nil {
			ObjectResults(rows, func(time.Duration, time.Duration) float64 { return 1 })
		}
	})
}

func TestBinMeans(t *testing.T) {
	got := BinMeans([]time.Duration{0, 50 * ms, 100 * ms, 101 * ms, 350 * ms, 9 * time.Second}, []float64{1, 3, 5, 7, 9, 11}, 4, 100*ms)
	want := []float64{3, 7, math.NaN(), 9} // (0, 100]: 1, 3, 5; (100, 200]: 7; (300, 400]: 9; 9 s is past the last bin
	for i := range want {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Errorf("bin %d: %v, want %v", i, got[i], want[i])
		}
	}
	var b bytes.Buffer
	(&SeriesTable{Header: []string{"t_s", "x"}, Rows: [][]float64{{0.1, math.NaN()}}}).Write(&b)
	if b.String() != "t_s,x\n0.1,\n" {
		t.Errorf("NaN written as %q", b.String())
	}
}
