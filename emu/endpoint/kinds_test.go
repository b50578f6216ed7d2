package endpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// kindPair is a server and client configuration over loopback for one
// protocol, with the files of the test's directory.
func kindPair(t *testing.T, proto Proto) (ServerConfig, ClientConfig, string) {
	t.Helper()
	dir, cert, key := testCert(t)
	scfg := ServerConfig{Proto: proto, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key}
	ccfg := ClientConfig{Proto: proto, CAFile: cert, Interval: 20 * time.Millisecond, Log: testLog(t, "client")}
	if proto == ProtoQUIC {
		ccfg.QlogFile = filepath.Join(dir, "client.sqlog")
	}
	return scfg, ccfg, dir
}

// kindDownload runs one client of work against a fresh server of proto,
// with the kind log logName in the test's directory, and fails the test if
// the client fails.
func kindDownload(t *testing.T, proto Proto, work Workload, logName string) (Result, ClientConfig) {
	t.Helper()
	scfg, ccfg, dir := kindPair(t, proto)
	srv := startServer(t, scfg)
	ccfg.URL, ccfg.Work = BytesURL(srv.addr, 0), work
	ccfg.Work.KindLog = filepath.Join(dir, logName)
	r, err := Download(context.Background(), ccfg, nil)
	if err != nil {
		t.Fatalf("%s: %v", work.Kind, err)
	}
	return r, ccfg
}

// doneLine checks that a result's done line parses back to its workload.
func doneLine(t *testing.T, r Result, err error) Event {
	t.Helper()
	var b strings.Builder
	if werr := WriteEvent(&b, DoneEvent(r, err)); werr != nil {
		t.Fatal(werr)
	}
	ev, perr := ParseEvent([]byte(b.String()))
	if perr != nil {
		t.Fatalf("done line %s: %v", b.String(), perr)
	}
	if (r.Work == nil) != (ev.Work == nil) || r.Work != nil && ev.Work.Kind != r.Work.Kind {
		t.Errorf("done line %s lost the workload", b.String())
	}
	return ev
}

func TestUpload(t *testing.T) {
	const n = 3_000_000
	for _, proto := range []Proto{ProtoQUIC, ProtoTCP} {
		t.Run(string(proto), func(t *testing.T) {
			scfg, ccfg, dir := kindPair(t, proto)
			scfg.Work = ServerWork{RecvLog: filepath.Join(dir, "up.csv"), OWDLog: filepath.Join(dir, "up-owd.csv")}
			srv := startServer(t, scfg)
			ccfg.URL, ccfg.Size, ccfg.Work = BytesURL(srv.addr, n), n, Workload{Kind: KindBulk, Up: true}
			var prog progressLog
			r, err := Download(context.Background(), ccfg, prog.add)
			if err != nil {
				t.Fatalf("upload: %v", err)
			}
			if r.Bytes != n || !r.Complete || r.Seconds <= 0 || r.GoodputMbps <= 0 || r.OWD == nil || r.OWD.N < n/DefaultStampInterval {
				t.Errorf("result %+v (owd %+v)", r, r.OWD)
			}
			if r.Work == nil || r.Work.Direction != "up" {
				t.Errorf("workload %+v", r.Work)
			}
			doneLine(t, r, err)
			checkRecvLog(t, scfg.Work.RecvLog, n)
			rows, err := results.ReadOWDFile(scfg.Work.OWDLog)
			if err != nil || len(rows) != r.OWD.N {
				t.Errorf("server owd log: %d rows, %v; want %d", len(rows), err, r.OWD.N)
			}
			t.Logf("%s upload: %d bytes in %.3f s = %.0f Mbit/s, owd p50 %.2f ms", proto, r.Bytes, r.Seconds, r.GoodputMbps, r.OWD.P50)
		})
	}
}

func TestUploadDuration(t *testing.T) {
	scfg, ccfg, _ := kindPair(t, ProtoTCP)
	srv := startServer(t, scfg)
	ccfg.URL, ccfg.Duration, ccfg.Work = BytesURL(srv.addr, UnboundedSize), 500*time.Millisecond, Workload{Kind: KindBulk, Up: true}
	r, err := Download(context.Background(), ccfg, nil)
	if err != nil || !r.Complete || r.Seconds != 0.5 || r.Bytes <= 0 {
		t.Fatalf("result %+v, %v", r, err)
	}
}

func TestRR(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proto Proto
		work  Workload
	}{
		{"quic-back-to-back", ProtoQUIC, Workload{Kind: KindRR, Request: 100, Response: 100, Count: 30}},
		{"tcp-back-to-back", ProtoTCP, Workload{Kind: KindRR, Request: 100, Response: 100, Count: 30}},
		{"quic-interval", ProtoQUIC, Workload{Kind: KindRR, Request: 1000, Response: 200_000, Count: 10, Every: 10 * time.Millisecond}},
		{"tcp-new-conns", ProtoTCP, Workload{Kind: KindRR, Request: 0, Response: 10, Count: 5, NewConns: true}},
		{"quic-new-conns-0rtt", ProtoQUIC, Workload{Kind: KindRR, Request: 100, Response: 100, Count: 4, NewConns: true, Resume: "0rtt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ccfg := kindDownload(t, tc.proto, tc.work, "rr.csv")
			w := r.Work
			if w == nil || w.Kind != "rr" || w.Transactions != tc.work.Count || w.LatencyMs == nil || w.LatencyMs.N != tc.work.Count || !r.Complete {
				t.Fatalf("result %+v, workload %+v", r, w)
			}
			if r.Bytes != int64(tc.work.Count)*tc.work.Response {
				t.Errorf("%d response bytes, want %d", r.Bytes, int64(tc.work.Count)*tc.work.Response)
			}
			rows, err := results.ReadRRFile(ccfg.Work.KindLog)
			if err != nil || len(rows) != tc.work.Count {
				t.Errorf("rr log: %d rows, %v", len(rows), err)
			}
			conns := 1
			if tc.work.NewConns {
				conns = tc.work.Count
			}
			if w.HandshakeMs == nil || w.HandshakeMs.N != conns {
				t.Errorf("handshakes %+v, want %d", w.HandshakeMs, conns)
			}
			if tc.work.Resume != "" {
				if rs := w.Resume; rs == nil || rs.Connections != conns || rs.Resumed != conns || rs.ZeroRTT != conns {
					t.Errorf("resume %+v, want %d connections, all resumed with 0-RTT", rs, conns)
				}
			}
			doneLine(t, r, err)
			t.Logf("%s: %d transactions, latency p50 %.3f p95 %.3f ms", tc.name, w.Transactions, w.LatencyMs.P50, w.LatencyMs.P95)
		})
	}
}

func TestCBR(t *testing.T) {
	for _, up := range []bool{false, true} {
		name := "down"
		if up {
			name = "up"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			scfg := ServerConfig{Proto: ProtoUDP, Listen: "127.0.0.1:0", Work: ServerWork{KindLog: filepath.Join(dir, "srv.cbr.csv"), RecvLog: filepath.Join(dir, "srv.csv")}}
			srv := startServer(t, scfg)
			ccfg := ClientConfig{Proto: ProtoUDP, URL: "udp://" + srv.addr + "/", Interval: 20 * time.Millisecond, Log: testLog(t, "client"),
				RecvLog: filepath.Join(dir, "cli.csv"),
				Work:    Workload{Kind: KindCBR, Up: up, Packet: 160, Every: 2 * time.Millisecond, Count: 200, KindLog: filepath.Join(dir, "cli.cbr.csv")}}
			r, err := Download(context.Background(), ccfg, nil)
			if err != nil {
				t.Fatalf("cbr: %v", err)
			}
			w := r.Work
			if w == nil || *w.Sent != 200 || *w.Received < 190 || r.OWD == nil || w.JitterMs == nil || w.Loss == nil || !r.Complete {
				t.Fatalf("result %+v, workload %+v", r, w)
			}
			if r.OWD.P50 > 5 {
				t.Errorf("loopback one-way delay p50 %.3f ms", r.OWD.P50)
			}
			logPath := ccfg.Work.KindLog
			if up {
				logPath = scfg.Work.KindLog
			}
			pkts, err := results.ReadCBRFile(logPath)
			if err != nil || int64(len(pkts)) != *w.Received {
				t.Errorf("cbr log %s: %d rows, %v; want %d", logPath, len(pkts), err, *w.Received)
			}
			doneLine(t, r, err)
			t.Logf("cbr %s: %d of %d, owd p50 %.3f p99 %.3f ms, jitter %.3f ms", name, *w.Received, *w.Sent, r.OWD.P50, r.OWD.P99, *w.JitterMs)
		})
	}
}

func TestObjects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proto Proto
		work  Workload
		n     int
	}{
		{"quic-seq-list", ProtoQUIC, Workload{Kind: KindObjects, Objects: "10kB,100kB,1MB"}, 3},
		{"tcp-poisson-new-conns", ProtoTCP, Workload{Kind: KindObjects, Objects: "exp:50kB", Arrivals: "poisson:20ms", Count: 12, NewConns: true, Seed: 7}, 12},
		{"quic-resume-1rtt", ProtoQUIC, Workload{Kind: KindObjects, Objects: "fixed:20kB", Count: 3, NewConns: true, Resume: "1rtt"}, 3},
		{"quic-resume-0rtt", ProtoQUIC, Workload{Kind: KindObjects, Objects: "500kB", Resume: "0rtt"}, 1},
		{"tcp-resume-1rtt", ProtoTCP, Workload{Kind: KindObjects, Objects: "fixed:20kB", Count: 2, NewConns: true, Resume: "1rtt"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ccfg := kindDownload(t, tc.proto, tc.work, "objects.csv")
			rows, err := results.ReadObjectsFile(ccfg.Work.KindLog)
			if err != nil || len(rows) != tc.n {
				t.Fatalf("objects log: %d rows, %v", len(rows), err)
			}
			var total int64
			for _, row := range rows {
				if !row.Complete() || row.FCT <= 0 {
					t.Errorf("object %+v", row)
				}
				total += row.Size
			}
			if r.Bytes != total || r.Work == nil || r.Work.FCTS == nil || r.Work.FCTS.N != tc.n {
				t.Errorf("result %+v, workload %+v", r, r.Work)
			}
			if tc.work.Resume != "" {
				conns := 1
				if tc.work.NewConns {
					conns = tc.n
				}
				rs := r.Work.Resume
				wantZero := 0
				if tc.work.Resume == "0rtt" {
					wantZero = conns
				}
				if rs == nil || rs.Connections != conns || rs.Resumed != conns || rs.ZeroRTT != wantZero || rs.FirstHandshakeMs <= 0 {
					t.Errorf("resume %+v, want %d connections resumed, %d with 0-RTT", rs, conns, wantZero)
				}
				if tc.work.Resume == "0rtt" {
					if st := checkQlog(t, numberedPath(ccfg.QlogFile, 2), "client"); st.packets == 0 || !qlogHas(t, numberedPath(ccfg.QlogFile, 2), `"packet_type":"0RTT"`) {
						t.Errorf("the resumed connection's qlog has no 0-RTT packet")
					}
				}
			}
			doneLine(t, r, err)
			t.Logf("%s: %d objects, fct p50 %.4f s", tc.name, len(rows), r.Work.FCTS.P50)
		})
	}
}

func qlogHas(t *testing.T, path, s string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), s)
}

func TestObjectScheduleIsSeeded(t *testing.T) {
	w := Workload{Kind: KindObjects, Objects: "lognormal:100kB:1", Arrivals: "poisson:10ms", Count: 200, Seed: 42}
	draw := func() ([]int64, time.Duration) {
		s, err := newObjectSchedule(&w, 0)
		if err != nil {
			t.Fatal(err)
		}
		var sizes []int64
		var gaps time.Duration
		for s.more() {
			n, g := s.take()
			sizes, gaps = append(sizes, n), gaps+g
		}
		return sizes, gaps
	}
	a, ga := draw()
	b, gb := draw()
	if len(a) != 200 || ga != gb || a[17] != b[17] {
		t.Fatalf("two draws of one seed differ")
	}
	// 199 gaps of mean 10 ms: within a few standard errors of 1.99 s.
	if ga < 1500*time.Millisecond || ga > 2500*time.Millisecond {
		t.Errorf("199 Poisson gaps sum to %v, want about 1.99 s", ga)
	}
}
