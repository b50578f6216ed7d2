package analysis

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var sampleFiles = []string{"quicgo-client.sqlog", "quicgo-server.sqlog", "ngtcp2-client.qlog", "ngtcp2-server.qlog"}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func analyzeFile(t *testing.T, path string, opt QlogOptions) *ConnAnalysis {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := AnalyzeQlog(f, filepath.Base(path), opt)
	if err != nil {
		t.Fatalf("AnalyzeQlog(%s): %v", path, err)
	}
	return a
}

// naiveFigures recomputes the headline figures from the raw events with
// encoding/json into maps, sharing no code with the reader or extractor:
// byte-granular coverage bitmaps instead of interval sets, a sort-and-merge
// for the unique byte count, and a quadratic reordering check.
type naiveFigures struct {
	events        int
	bytesReceived int64
	packetsLost   int
	maxCwnd       int64
	meanSRTT      float64
	srttSamples   int
	reordered     int
	received1RTT  int
	firstByte     float64
	lastByte      float64
	rawInWindow   int64
	vantage       string
}

func naiveCompute(t *testing.T, path string) naiveFigures {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nf naiveFigures
	var recs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "\x1e")
		if strings.TrimSpace(line) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("naive: %v", err)
		}
		recs = append(recs, m)
	}
	hdr := recs[0]
	nf.vantage = hdr["trace"].(map[string]any)["vantage_point"].(map[string]any)["type"].(string)
	events := recs[1:]
	nf.events = len(events)

	type rng struct{ lo, hi int64 }
	ranges := map[float64][]rng{}
	covered := map[float64][]bool{}
	var srttSum float64
	var seen []float64 // 1-RTT packet numbers in arrival order
	haveFirst := false
	type rawPkt struct {
		t float64
		n int64
	}
	var raws []rawPkt
	for _, e := range events {
		name := e["name"].(string)
		short := name[strings.IndexByte(name, ':')+1:]
		data, _ := e["data"].(map[string]any)
		tm := e["time"].(float64)
		switch short {
		case "packet_lost":
			nf.packetsLost++
		case "metrics_updated":
			if c, ok := data["congestion_window"].(float64); ok && int64(c) > nf.maxCwnd {
				nf.maxCwnd = int64(c)
			}
			if _, ok := data["min_rtt"]; ok {
				if s, ok := data["smoothed_rtt"].(float64); ok {
					srttSum += s
					nf.srttSamples++
				}
			}
		case "packet_received":
			hdr := data["header"].(map[string]any)
			if hdr["packet_type"] == "1RTT" {
				nf.received1RTT++
				pn := hdr["packet_number"].(float64)
				for _, s := range seen {
					if s > pn {
						nf.reordered++
						break
					}
				}
				seen = append(seen, pn)
				raws = append(raws, rawPkt{tm, int64(data["raw"].(map[string]any)["length"].(float64))})
			}
			frames, _ := data["frames"].([]any)
			fresh := false
			for _, fr := range frames {
				f := fr.(map[string]any)
				if f["frame_type"] != "stream" {
					continue
				}
				id := f["stream_id"].(float64)
				off := int64(f["offset"].(float64))
				n := int64(f["length"].(float64))
				ranges[id] = append(ranges[id], rng{off, off + n})
				c := covered[id]
				for int64(len(c)) < off+n {
					c = append(c, false)
				}
				for b := off; b < off+n; b++ {
					if !c[b] {
						c[b] = true
						fresh = true
					}
				}
				covered[id] = c
			}
			if fresh {
				if !haveFirst {
					nf.firstByte, haveFirst = tm, true
				}
				nf.lastByte = tm
			}
		}
	}
	if nf.srttSamples > 0 {
		nf.meanSRTT = srttSum / float64(nf.srttSamples)
	}
	for _, rs := range ranges {
		sort.Slice(rs, func(i, j int) bool { return rs[i].lo < rs[j].lo })
		var cur rng
		started := false
		for _, r := range rs {
			if r.hi <= r.lo {
				continue
			}
			if !started {
				cur, started = r, true
				continue
			}
			if r.lo > cur.hi {
				nf.bytesReceived += cur.hi - cur.lo
				cur = r
			} else if r.hi > cur.hi {
				cur.hi = r.hi
			}
		}
		if started {
			nf.bytesReceived += cur.hi - cur.lo
		}
	}
	for _, r := range raws {
		if haveFirst && r.t >= nf.firstByte && r.t <= nf.lastByte {
			nf.rawInWindow += r.n
		}
	}
	return nf
}

func closeTo(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestSampleFiguresMatchIndependentComputation(t *testing.T) {
	for _, name := range sampleFiles {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			got := analyzeFile(t, path, QlogOptions{})
			want := naiveCompute(t, path)
			tot := got.Totals
			t.Logf("%s (%s): events %d, bytes_received %d, packets_lost %d, max_cwnd %d B, mean_srtt %.4f ms over %d samples, reordered %d/%d, goodput %.1f Mbit/s",
				name, got.Vantage, got.Events, tot.BytesReceived, tot.PacketsLost, tot.MaxCwndBytes,
				float64(tot.MeanSRTTMs), tot.RTTSamples, tot.ReorderedPackets, got.Reordering.Received, float64(tot.GoodputMbps))
			if got.Vantage != want.vantage || got.Events != want.events {
				t.Errorf("vantage/events = %s/%d, naive %s/%d", got.Vantage, got.Events, want.vantage, want.events)
			}
			if tot.BytesReceived != want.bytesReceived {
				t.Errorf("bytes_received = %d, naive %d", tot.BytesReceived, want.bytesReceived)
			}
			if tot.PacketsLost != int64(want.packetsLost) {
				t.Errorf("packets_lost = %d, naive %d", tot.PacketsLost, want.packetsLost)
			}
			if tot.MaxCwndBytes != want.maxCwnd {
				t.Errorf("max_cwnd_bytes = %d, naive %d", tot.MaxCwndBytes, want.maxCwnd)
			}
			if tot.RTTSamples != want.srttSamples || !closeTo(float64(tot.MeanSRTTMs), want.meanSRTT) {
				t.Errorf("mean_srtt_ms = %v over %d, naive %v over %d", tot.MeanSRTTMs, tot.RTTSamples, want.meanSRTT, want.srttSamples)
			}
			if tot.ReorderedPackets != int64(want.reordered) || got.Reordering.Received != int64(want.received1RTT) {
				t.Errorf("reordered = %d of %d, naive %d of %d", tot.ReorderedPackets, got.Reordering.Received, want.reordered, want.received1RTT)
			}
			if want.bytesReceived > 0 {
				if !closeTo(float64(tot.FirstByteMs), want.firstByte) || !closeTo(float64(tot.LastByteMs), want.lastByte) {
					t.Errorf("byte window = [%v, %v], naive [%v, %v]", tot.FirstByteMs, tot.LastByteMs, want.firstByte, want.lastByte)
				}
				if want.lastByte == want.firstByte {
					if tot.GoodputMbps.Valid() || tot.ThroughputMbps.Valid() {
						t.Errorf("goodput %v, throughput %v over a zero-length window; want null", tot.GoodputMbps, tot.ThroughputMbps)
					}
					return
				}
				wantGoodput := float64(want.bytesReceived) * 8 / ((want.lastByte - want.firstByte) / 1000) / 1e6
				if !closeTo(float64(tot.GoodputMbps), wantGoodput) {
					t.Errorf("goodput = %v Mbit/s, naive %v", tot.GoodputMbps, wantGoodput)
				}
				wantThr := float64(want.rawInWindow) * 8 / ((want.lastByte - want.firstByte) / 1000) / 1e6
				if !closeTo(float64(tot.ThroughputMbps), wantThr) {
					t.Errorf("throughput = %v Mbit/s, naive %v", tot.ThroughputMbps, wantThr)
				}
			}
		})
	}
}

// TestQuicGoClientMatchesMetricsDoc checks the figures metrics.md §2 and §4
// quote for the loopback sample.
func TestQuicGoClientMatchesMetricsDoc(t *testing.T) {
	a := analyzeFile(t, "testdata/quicgo-client.sqlog", QlogOptions{})
	tot := a.Totals
	if tot.BytesReceived != 2097152 {
		t.Errorf("bytes_received = %d, metrics.md says 2,097,152", tot.BytesReceived)
	}
	window := float64(tot.LastByteMs - tot.FirstByteMs)
	if math.Abs(window-26.13) > 0.005 {
		t.Errorf("first to last stream byte = %.3f ms, metrics.md says 26.13", window)
	}
	if math.Abs(float64(tot.GoodputMbps)-642) > 1 || math.Abs(float64(tot.ThroughputMbps)-657) > 1 {
		t.Errorf("goodput %.1f, throughput %.1f Mbit/s; metrics.md says ≈ 642 and ≈ 657", tot.GoodputMbps, tot.ThroughputMbps)
	}
	if a.Reordering.Received != 1520 || tot.ReorderedPackets != 0 {
		t.Errorf("reordered %d of %d 1-RTT packets; metrics.md says 0 of 1,520", tot.ReorderedPackets, a.Reordering.Received)
	}
	srv := analyzeFile(t, "testdata/quicgo-server.sqlog", QlogOptions{})
	if srv.Totals.PacketsLost != 31 || srv.Events != 3814 || a.Events != 1820 {
		t.Errorf("server lost %d packets in %d events, client %d events; qlog.md says 31, 3,814 and 1,820",
			srv.Totals.PacketsLost, srv.Events, a.Events)
	}
	if srv.Vantage != "server" || srv.Producer != "quic-go v0.65.0" || srv.WallClock.IsZero() {
		t.Errorf("header: vantage %q producer %q wall clock %v", srv.Vantage, srv.Producer, srv.WallClock)
	}
}
