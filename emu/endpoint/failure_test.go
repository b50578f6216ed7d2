package endpoint

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestHandshakeTimeout dials a UDP port nobody listens on: the download
// must fail with a clear reason within the handshake timeout.
func TestHandshakeTimeout(t *testing.T) {
	_, cert, _ := testCert(t)
	port, err := freeUDPPort(netip.MustParseAddr("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	const timeout = time.Second
	for _, impl := range []Impl{ImplQuicGo, ImplNgtcp2} {
		t.Run(string(impl), func(t *testing.T) {
			if impl == ImplNgtcp2 {
				requireNgtcp2(t)
			}
			start := time.Now()
			r, err := Download(context.Background(), ClientConfig{Impl: impl, Proto: ProtoQUIC,
				URL: BytesURL(net.JoinHostPort("127.0.0.1", itoa(int(port))), 1000), CAFile: cert,
				HandshakeTimeout: timeout, Log: testLog(t, "client")}, nil)
			took := time.Since(start)
			if err == nil || !strings.Contains(err.Error(), "handshake timeout") {
				t.Fatalf("err = %v, want a handshake timeout", err)
			}
			// Early is emu's fault on any machine; late can be the machine's
			// (the timer's goroutine waits for a CPU), but not five times
			// the timeout.
			if took < timeout-100*time.Millisecond {
				t.Errorf("failed after %v with a %v handshake timeout, want at least %v", took, timeout, timeout-100*time.Millisecond)
			}
			if took > 5*timeout {
				t.Errorf("failed after %v with a %v handshake timeout, want at most %v", took, timeout, 5*timeout)
			}
			if r.Complete || r.Bytes != 0 {
				t.Errorf("result %+v", r)
			}
			t.Logf("%s: %v after %v", impl, err, took.Round(time.Millisecond))
		})
	}
}

// TestConnectionRefused dials a TCP port nobody listens on.
func TestConnectionRefused(t *testing.T) {
	_, cert, _ := testCert(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = Download(context.Background(), ClientConfig{Proto: ProtoTCP, URL: BytesURL(addr, 1000), CAFile: cert}, nil)
	if err == nil || !strings.Contains(err.Error(), "connection refused by "+addr) {
		t.Fatalf("err = %v, want connection refused", err)
	}
}

// TestServerStopsMidDownload cancels the server while a download runs:
// the client must fail, saying the server closed the connection — at once,
// or after its idle timeout when the closing packet was lost (a QUIC
// client receiving at full speed on a loaded machine can drop it).
func TestServerStopsMidDownload(t *testing.T) {
	emutest.Exclusive(t) // saturates loopback
	for _, proto := range []Proto{ProtoQUIC, ProtoTCP} {
		t.Run(string(proto), func(t *testing.T) {
			_, cert, key := testCert(t)
			srv := startServer(t, ServerConfig{Proto: proto, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key})
			got := make(chan struct{})
			var once bool
			done := make(chan error, 1)
			var r Result
			go func() {
				var err error
				r, err = Download(context.Background(), ClientConfig{Proto: proto, URL: BytesURL(srv.addr, UnboundedSize),
					CAFile: cert, Interval: 5 * time.Millisecond, IdleTimeout: 5 * time.Second}, func(p Progress) {
					if p.Bytes > 0 && !once {
						once = true
						close(got)
					}
				})
				done <- err
			}()
			select {
			case <-got:
			case err := <-done:
				t.Fatalf("download ended before the server stopped: %v", err)
			case <-time.After(10 * time.Second):
				t.Fatalf("no data within 10 s")
			}
			stopped := time.Now()
			if err := srv.stop(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "server closed the connection") && !strings.Contains(err.Error(), "server gone") {
					t.Errorf("err = %v, want the server closing the connection or gone", err)
				}
				if r.Complete || r.Bytes == 0 {
					t.Errorf("result %+v", r)
				}
				t.Logf("%s: failed %v after the server stopped: %v", proto, time.Since(stopped).Round(time.Millisecond), err)
			case <-time.After(25 * time.Second):
				t.Fatalf("client still downloading 25 s after the server stopped (idle timeout 5 s)")
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestClientInterrupted cancels downloads in flight: each client must
// stop at once, report what it measured as incomplete, say it was
// interrupted, and leave a complete qlog (the ngtcp2 client's too, which
// gets SIGINT).
func TestClientInterrupted(t *testing.T) {
	emutest.Exclusive(t) // saturates loopback
	for _, impl := range []Impl{ImplQuicGo, ImplNgtcp2} {
		t.Run(string(impl), func(t *testing.T) {
			if impl == ImplNgtcp2 {
				requireNgtcp2(t)
			}
			dir, cert, key := testCert(t)
			srv := startServer(t, ServerConfig{Proto: ProtoQUIC, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cfg := ClientConfig{Impl: impl, Proto: ProtoQUIC, URL: BytesURL(srv.addr, UnboundedSize), CAFile: cert,
				QlogFile: qlogPath(dir, "client"), Interval: 5 * time.Millisecond, Log: testLog(t, "client")}
			var cancelled time.Time
			r, err := Download(ctx, cfg, func(p Progress) {
				if p.Bytes > 0 && cancelled.IsZero() {
					cancelled = time.Now()
					cancel()
				}
			})
			if cancelled.IsZero() {
				t.Fatalf("no data before the download ended: %v", err)
			}
			if took := time.Since(cancelled); took > 4*time.Second {
				t.Errorf("download returned %v after its cancellation, want at most 4s", took)
			}
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted") {
				t.Errorf("err = %v, want interrupted", err)
			}
			if r.Complete || r.Bytes == 0 || r.Seconds <= 0 {
				t.Errorf("result %+v", r)
			}
			checkQlog(t, cfg.QlogFile, "client")
		})
	}
}
