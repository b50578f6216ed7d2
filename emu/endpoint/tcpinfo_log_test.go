package endpoint

import (
	"context"
	"math"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/internal/tcpinfo"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
)

func readTCPInfoLog(t *testing.T, path string) []results.TCPInfoRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := results.ReadTCPInfo(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestTCPInfoLogOfADownload: the Go TCP server samples its connection
// every 10 ms for as long as it lives, and the last row (taken as the
// connection closes) accounts for every byte the client received.
func TestTCPInfoLogOfADownload(t *testing.T) {
	emutest.Exclusive(t) // saturates loopback
	dir, cert, key := testCert(t)
	logPath := filepath.Join(dir, "tcpinfo.csv")
	t0 := time.Now()
	srv := startServer(t, ServerConfig{Proto: ProtoTCP, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key,
		CC: "reno", TCPInfoLog: logPath, T0: t0})
	const size = 200 << 20
	r, err := Download(context.Background(), ClientConfig{Proto: ProtoTCP, URL: BytesURL(srv.addr, size), CAFile: cert}, nil)
	if err != nil || !r.Complete {
		t.Fatalf("download: %+v, %v", r, err)
	}
	if err := srv.stop(); err != nil {
		t.Fatal(err)
	}
	acc := <-srv.conns
	rows := readTCPInfoLog(t, logPath)
	last := rows[len(rows)-1]
	t.Logf("%d rows over %.3f s; last: %+v", len(rows), last.T-rows[0].T, last)
	// The number of rows is the sampler's ticker's, which a busy machine
	// delays, but not to a tenth of its ticks.
	if n := int(r.Seconds / DefaultTCPInfoInterval.Seconds()); len(rows) < n/10 || len(rows) > 3*n+3 {
		t.Errorf("%d samples for a %.3f s download at %v, want %d to %d", len(rows), r.Seconds, DefaultTCPInfoInterval, n/10, 3*n+3)
	}
	for i, row := range rows {
		if row.Subflow != 0 || row.CC != acc.CC || row.CC != "reno" || row.Remote.String() == "" ||
			math.IsNaN(row.SRTTMs) || row.SRTTMs <= 0 || row.CwndBytes <= 0 || row.BytesAcked < 0 {
			t.Fatalf("row %d: %+v", i, row)
		}
		if i > 0 && (row.T < rows[i-1].T || row.BytesAcked < rows[i-1].BytesAcked) {
			t.Fatalf("row %d goes backwards: %+v after %+v", i, row, rows[i-1])
		}
	}
	if rows[0].T < 0 || rows[0].T > time.Since(t0).Seconds() {
		t.Errorf("first t_s %.3f not since t0", rows[0].T)
	}
	// TLS records and HTTP/2 frames add a little to the body (and the
	// FIN's sequence number one byte). The body was sent once at least,
	// so the bytes sent for the first time (bytes_sent counts every
	// retransmission too, and loopback retransmits when a burst overflows
	// a queue or a timer fires early; bytes_retrans is their part) hold
	// it. bytes_acked holds it too: the headers and the records' overhead
	// (over 250 kB for 200 MiB), which precede the body's last byte, are
	// more than a receiver leaves unacknowledged when it closes (a
	// delayed ACK covers at most two segments; a reset carries none).
	unique := last.BytesSent - last.BytesRetrans
	if unique < r.Bytes || float64(unique) > float64(r.Bytes)*1.02+1e6 {
		t.Errorf("last bytes_sent %d less bytes_retrans %d = %d sent once, for %d body bytes received", last.BytesSent, last.BytesRetrans, unique, r.Bytes)
	}
	if last.BytesAcked < r.Bytes || last.BytesAcked > unique+1 {
		t.Errorf("last bytes_acked %d for %d body bytes received and %d sent once (+1 for the FIN)", last.BytesAcked, r.Bytes, unique)
	}
}

// TestFidelityTCPInfoSamplerCost measures what sampling costs: the CPU
// time of this process over an idle connection sampled every 10 ms, per
// second and per sample. That the sampler samples is
// TestTCPInfoLogOfADownload's.
func TestFidelityTCPInfoSamplerCost(t *testing.T) {
	h := emutest.Fidelity(t)
	dir, cert, key := testCert(t)
	srv := startServer(t, ServerConfig{Proto: ProtoTCP, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key,
		TCPInfoLog: filepath.Join(dir, "idle.csv")})
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	const span = 2 * time.Second
	base0 := cpu()
	time.Sleep(span / 4) // a measured idle span, not a wait for a condition
	baseline := (cpu() - base0) * 4

	c, err := net.Dial("tcp", srv.addr) // accepted and sampled; no TLS, so idle
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	<-srv.conns
	c0, w0 := cpu(), time.Now()
	time.Sleep(span)
	used, wall := cpu()-c0-baseline, time.Since(w0)
	samples := float64(wall / DefaultTCPInfoInterval)
	perSec := used.Seconds() / wall.Seconds()
	t.Logf("sampling one connection every %v: %.2f ms CPU per second (%.3f %% of a core), %.1f µs per sample (idle process baseline %.2f ms/s subtracted)",
		DefaultTCPInfoInterval, perSec*1e3, perSec*100, used.Seconds()/samples*1e6, baseline.Seconds()/span.Seconds()*1e3)
	// Other processes' work on the same CPUs lengthens this one's (caches,
	// frequency, the scheduler's ticks): a miss goes through the watch.
	if perSec > 0.05 {
		h.Errorf(t, "sampling costs %.1f %% of a core, want at most 5 %%", perSec*100)
	}
}

// idleSampler is a sampler of an idle loopback connection, logging to a
// file in a temporary directory.
func idleSampler(tb testing.TB) *sampler {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	rc, _ := c.(*net.TCPConn).SyscallConn()
	f, err := os.Create(filepath.Join(tb.TempDir(), "x.csv"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return &sampler{f: f, w: results.NewTCPInfoWriter(f), t0: time.Now(), tcp: tcpinfo.NewReader(rc), cc: "cubic"}
}

// BenchmarkTCPInfoSample is one sample of a live connection: getsockopt,
// decode, one CSV row.
func BenchmarkTCPInfoSample(b *testing.B) {
	s := idleSampler(b)
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		s.sample(now)
	}
	if s.err != nil {
		b.Fatal(s.err)
	}
}

func TestTCPInfoSampleAllocatesNothing(t *testing.T) {
	s := idleSampler(t)
	now := time.Now()
	if n := testing.AllocsPerRun(500, func() { s.sample(now) }); n != 0 || s.err != nil {
		t.Errorf("%v allocations per sample (err %v)", n, s.err)
	}
}
