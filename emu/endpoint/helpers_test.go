package endpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// testServer is a server running in this process for one test.
type testServer struct {
	addr     string
	conns    chan ConnInfo
	cancel   context.CancelFunc
	finished chan struct{}
	err      error // Serve's result, valid once finished is closed
}

// startServer runs Serve until the test ends (or stop) and waits until it
// is ready.
func startServer(t *testing.T, cfg ServerConfig) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{conns: make(chan ConnInfo, 16), cancel: cancel, finished: make(chan struct{})}
	ready := make(chan string, 1)
	cfg.Ready = func(a string) { ready <- a }
	cfg.OnConn = func(c ConnInfo) {
		select {
		case s.conns <- c:
		default:
		}
	}
	if cfg.Log == nil {
		cfg.Log = testLog(t, "server")
	}
	go func() {
		s.err = Serve(ctx, cfg)
		close(s.finished)
	}()
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("server: %v", err)
		}
	})
	select {
	case s.addr = <-ready:
	case <-s.finished:
		t.Fatalf("server did not start: %v", s.err)
	case <-time.After(10 * time.Second):
		t.Fatal("server not ready within 10 s")
	}
	return s
}

// stop cancels the server and returns Serve's result.
func (s *testServer) stop() error {
	s.cancel()
	select {
	case <-s.finished:
		return s.err
	case <-time.After(10 * time.Second):
		return errors.New("Serve did not return within 10 s of its cancellation")
	}
}

// testLog collects an endpoint's log and shows it if the test fails.
func testLog(t *testing.T, who string) *syncBuffer {
	b := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() && b.Len() > 0 {
			t.Logf("%s log:\n%s", who, b.String())
		}
	})
	return b
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

func requireNgtcp2(t *testing.T) {
	t.Helper()
	for _, p := range []string{Ngtcp2Client, Ngtcp2Server} {
		if _, err := FindNgtcp2(p); err != nil {
			t.Skipf("ngtcp2 interop needs Debian's ngtcp2-client and ngtcp2-server: %v", err)
		}
	}
}

// testCert writes a certificate for the test and returns its files.
func testCert(t *testing.T) (dir, cert, key string) {
	t.Helper()
	dir = t.TempDir()
	cert, key, err := WriteSelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, cert, key
}

// qlogStats is what checkQlog found in a qlog file.
type qlogStats struct {
	events      int
	packets     int // packet_sent + packet_received
	ecnReceived int // packet_received events with an ECN codepoint
}

// checkQlog reads a JSON-SEQ qlog file written by quic-go or ngtcp2 and
// fails the test unless it starts with a valid header of the given vantage
// point, every record is complete JSON, and it has packet events.
func checkQlog(t *testing.T, path, vantage string) qlogStats {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("qlog: %v", err)
	}
	if len(data) == 0 || data[0] != 0x1e {
		t.Fatalf("qlog %s: does not start with a JSON-SEQ record separator", path)
	}
	if data[len(data)-1] != '\n' {
		t.Errorf("qlog %s: last record is cut short", path)
	}
	recs := bytes.Split(data[1:], []byte{0x1e})
	var hdr struct {
		QlogFormat  string `json:"qlog_format"`
		QlogVersion string `json:"qlog_version"`
		Trace       struct {
			VantagePoint struct {
				Type string `json:"type"`
			} `json:"vantage_point"`
		} `json:"trace"`
	}
	if err := json.Unmarshal(recs[0], &hdr); err != nil {
		t.Fatalf("qlog %s: header: %v", path, err)
	}
	if hdr.QlogFormat != "JSON-SEQ" || hdr.QlogVersion != "0.3" || hdr.Trace.VantagePoint.Type != vantage {
		t.Errorf("qlog %s: header %+v, want JSON-SEQ 0.3 from a %s", path, hdr, vantage)
	}
	var st qlogStats
	for i, rec := range recs[1:] {
		var ev struct {
			Name string `json:"name"`
			Data struct {
				ECN string `json:"ecn"`
			} `json:"data"`
		}
		if err := json.Unmarshal(rec, &ev); err != nil {
			t.Fatalf("qlog %s: record %d: %v", path, i+2, err)
		}
		st.events++
		switch {
		case strings.HasSuffix(ev.Name, ":packet_sent"):
			st.packets++
		case strings.HasSuffix(ev.Name, ":packet_received"):
			st.packets++
			if strings.HasPrefix(ev.Data.ECN, "ECT") || ev.Data.ECN == "CE" {
				st.ecnReceived++
			}
		}
	}
	if st.packets == 0 {
		t.Errorf("qlog %s: %d events, none a packet_sent or packet_received", path, st.events)
	}
	return st
}

// checkRecvLog checks that a recv-log is a CSV of non-decreasing times
// and cumulative byte counts ending at wantBytes.
func checkRecvLog(t *testing.T, path string, wantBytes int64) (rows int, lastT float64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if lines[0] != "t_s,bytes" {
		t.Fatalf("recv-log %s: header %q", path, lines[0])
	}
	var prevB int64
	for i, l := range lines[1:] {
		ts, bs, ok := strings.Cut(l, ",")
		tv, err1 := strconv.ParseFloat(ts, 64)
		bv, err2 := strconv.ParseInt(bs, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("recv-log %s: line %d: %q", path, i+2, l)
		}
		if tv < lastT || bv <= prevB {
			t.Fatalf("recv-log %s: line %d (%q) goes backwards", path, i+2, l)
		}
		lastT, prevB = tv, bv
	}
	if prevB != wantBytes {
		t.Errorf("recv-log %s: ends at %d bytes, want %d", path, prevB, wantBytes)
	}
	return len(lines) - 1, lastT
}

// progressLog collects progress reports.
type progressLog struct {
	mu sync.Mutex
	ps []Progress
}

func (p *progressLog) add(pr Progress) {
	p.mu.Lock()
	p.ps = append(p.ps, pr)
	p.mu.Unlock()
}

func (p *progressLog) check(t *testing.T, max int64) []Progress {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := 1; i < len(p.ps); i++ {
		if p.ps[i].T <= p.ps[i-1].T || p.ps[i].Bytes < p.ps[i-1].Bytes {
			t.Errorf("progress goes backwards: %+v then %+v", p.ps[i-1], p.ps[i])
		}
	}
	for _, pr := range p.ps {
		if pr.Bytes > max {
			t.Errorf("progress %+v beyond the %d bytes received", pr, max)
		}
	}
	return append([]Progress(nil), p.ps...)
}

func mustExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
}

func qlogPath(dir, name string) string { return filepath.Join(dir, fmt.Sprintf("%s.sqlog", name)) }

// freshUDPRcvBuf is the receive buffer the kernel gives a new UDP socket.
func freshUDPRcvBuf(t *testing.T) int {
	t.Helper()
	c, err := net.ListenUDP("udp4", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := rcvBuf(c)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkOWD checks a download's one-way delays: with stamped bodies, one
// row per stamp of an n-byte body in the log, all delays positive and
// below a second on this host, and statistics that match the log; without,
// no statistics and a log with the header only (Go clients) or none. A
// second is thousands of times a delay over loopback or a bare veth, and
// more than a busy host makes a stamp wait for its reader.
func checkOWD(t *testing.T, path string, st *results.DelayStats, stamped bool, n, interval int64) []results.OWDRow {
	t.Helper()
	rows, err := results.ReadOWDFile(path)
	if errors.Is(err, os.ErrNotExist) && !stamped {
		if st != nil {
			t.Errorf("owd stats %+v without a log", st)
		}
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if !stamped {
		if len(rows) != 0 || st != nil {
			t.Errorf("unstamped body: %d owd rows, stats %+v", len(rows), st)
		}
		return rows
	}
	want := int((n - StampSize + interval) / interval)
	if len(rows) != want || st == nil || st.N != want {
		t.Fatalf("%d owd rows, stats %+v; want %d stamps", len(rows), st, want)
	}
	ms := make([]float64, len(rows))
	late, worst := 0, time.Duration(0)
	for i, r := range rows {
		if r.Offset != int64(i)*interval || r.OWD <= 0 {
			t.Errorf("owd row %d: %+v", i, r)
		}
		if r.OWD > time.Second {
			late, worst = late+1, max(worst, r.OWD)
		}
		ms[i] = float64(r.OWD) / 1e6
	}
	if late > 0 {
		t.Errorf("%d of %d one-way delays over 1s on this host, the longest %v", late, len(rows), worst)
	}
	fromLog, _ := results.SummarizeDelays(ms)
	// The log has microseconds, the statistics nanoseconds.
	if d := fromLog.P50 - st.P50; d > 0.001 || d < -0.001 || fromLog.N != st.N {
		t.Errorf("owd stats %+v, the log gives %+v", st, fromLog)
	}
	t.Logf("owd: %d stamps, p50 %.3f ms, p95 %.3f ms, p99 %.3f ms, max %.3f ms", st.N, st.P50, st.P95, st.P99, st.Max)
	return rows
}

// checkKeyLog checks that path is an SSLKEYLOGFILE with the TLS 1.3
// secrets of at least conns connections.
func checkKeyLog(t *testing.T, path string, conns int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 || len(f[1]) != 64 {
			t.Fatalf("keylog %s: line %q is not LABEL CLIENT_RANDOM SECRET", path, l)
		}
		count[f[0]]++
	}
	for _, label := range []string{"CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET", "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0"} {
		if count[label] < conns {
			t.Errorf("keylog %s: %d %s lines, want %d", path, count[label], label, conns)
		}
	}
}
