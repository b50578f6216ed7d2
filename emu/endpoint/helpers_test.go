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
