package endpoint

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
)

// durationLimited runs 1 s windows against an unbounded URL, one subtest
// per implementation: the result must be exactly the window and count
// only what arrived in it (its progress reports and recv-log rows no
// later than the window and half of it), and the download must stop
// within five times the window. judge gets, in the subtest, how late
// after the window its last progress report and recv-log row were
// stamped.
func durationLimited(t *testing.T, judge func(t *testing.T, lastProgress, lastRecv time.Duration)) {
	const window = time.Second
	for _, tc := range []struct {
		name           string
		proto          Proto
		server, client Impl
	}{
		{"quic-go", ProtoQUIC, ImplQuicGo, ImplQuicGo},
		{"tcp", ProtoTCP, ImplGo, ImplGo},
		{"ngtcp2-client", ProtoQUIC, ImplQuicGo, ImplNgtcp2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.client == ImplNgtcp2 {
				requireNgtcp2(t)
			}
			dir, cert, key := testCert(t)
			srv := startServer(t, ServerConfig{Impl: tc.server, Proto: tc.proto, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key})
			t0 := time.Now()
			var prog progressLog
			cfg := ClientConfig{Impl: tc.client, Proto: tc.proto, URL: BytesURL(srv.addr, UnboundedSize), CAFile: cert,
				Duration: window, T0: t0, RecvLog: dir + "/recv.csv", Log: testLog(t, "client")}
			r, err := Download(context.Background(), cfg, prog.add)
			took := time.Since(t0)
			if err != nil {
				t.Fatalf("download: %v", err)
			}
			if !r.Complete || r.Seconds != window.Seconds() || r.Bytes <= 0 {
				t.Errorf("result %+v, want complete over exactly %v", r, window)
			}
			if took > 5*window {
				t.Errorf("a %v window took %v, want at most %v", window, took, 5*window)
			}
			ps := prog.check(t, r.Bytes)
			// One report per 100 ms; a busy machine skips some, never adds.
			if len(ps) > 10 || len(ps) < 2 {
				t.Errorf("%d progress reports in a 1 s window at 100 ms, want 2 to 10", len(ps))
			}
			var lastProgress time.Duration
			if len(ps) > 0 {
				lastProgress = ps[len(ps)-1].T - window
				if lastProgress > window/2 {
					t.Errorf("progress %v after the %v window: %+v", lastProgress, window, ps[len(ps)-1])
				}
			}
			_, lastT := checkRecvLog(t, cfg.RecvLog, r.Bytes)
			lastRecv := time.Duration(lastT*float64(time.Second)) - window
			if lastRecv > window/2 {
				t.Errorf("recv-log row %v after the %v window", lastRecv, window)
			}
			t.Logf("%s: %d bytes in the %v window (%.0f Mbit/s), stopped after %v", tc.name, r.Bytes, window, r.GoodputMbps, took.Round(time.Millisecond))
			judge(t, lastProgress, lastRecv)
			if tc.client == ImplNgtcp2 {
				leftovers(t)
			}
		})
	}
}

// TestDurationLimited: a duration-limited download is exactly its window
// (durationLimited).
func TestDurationLimited(t *testing.T) {
	emutest.Exclusive(t) // saturates loopback for a second
	durationLimited(t, func(*testing.T, time.Duration, time.Duration) {})
}

// TestFidelityDurationLimited: a duration-limited download's last
// progress report and recv-log row are stamped within 50 ms of the
// window's end. How late the last read is stamped is the machine's as
// much as emu's: those misses go through the watch, together.
func TestFidelityDurationLimited(t *testing.T) {
	h := emutest.Fidelity(t)
	durationLimited(t, func(t *testing.T, lastProgress, lastRecv time.Duration) {
		var missed []string
		if lastProgress > 50*time.Millisecond {
			missed = append(missed, fmt.Sprintf("progress %v after the window, want at most 50 ms", lastProgress))
		}
		if lastRecv > 50*time.Millisecond {
			missed = append(missed, fmt.Sprintf("recv-log row %v after the window, want at most 50 ms", lastRecv))
		}
		h.Check(t, missed)
	})
}

// leftovers fails if an ngtcp2 download directory is left in TMPDIR.
func leftovers(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if len(e.Name()) > 14 && e.Name()[:14] == "emu-ngtcp2-dl-" {
			if st, err := os.Stat(os.TempDir() + "/" + e.Name()); err == nil && time.Since(st.ModTime()) < time.Minute {
				t.Errorf("download directory %s left behind", e.Name())
			}
		}
	}
}
