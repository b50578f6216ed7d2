package endpoint

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestDurationLimited runs 1 s windows against an unbounded URL: the
// result must be exactly the window, count only what arrived in it, and
// the download must stop on time.
func TestDurationLimited(t *testing.T) {
	h := emutest.Exclusive(t) // saturates loopback for a second
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
			// How soon the download stops, how many reports a ticker
			// delivers and how late the last read is stamped are the
			// machine's as much as emu's: those misses go through the
			// watch, together.
			var missed []string
			if took > window+4*time.Second {
				missed = append(missed, fmt.Sprintf("a %v window took %v, want at most %v", window, took, window+4*time.Second))
			}
			ps := prog.check(t, r.Bytes)
			// One report per 100 ms; a busy machine skips some, never adds.
			if len(ps) > 10 {
				t.Errorf("%d progress reports in a 1 s window at 100 ms, want at most 10", len(ps))
			}
			if len(ps) < 2 {
				missed = append(missed, fmt.Sprintf("%d progress reports in a 1 s window at 100 ms, want at least 2", len(ps)))
			}
			if len(ps) > 0 {
				if last := ps[len(ps)-1]; last.T > window+50*time.Millisecond {
					missed = append(missed, fmt.Sprintf("progress at %v, over 50 ms after the %v window: %+v", last.T, window, last))
				}
			}
			_, lastT := checkRecvLog(t, cfg.RecvLog, r.Bytes)
			if lastT > window.Seconds()+0.05 {
				missed = append(missed, fmt.Sprintf("recv-log row at %.3f s, over 50 ms after the %v window", lastT, window))
			}
			h.Check(t, missed)
			t.Logf("%s: %d bytes in the %v window (%.0f Mbit/s), stopped after %v", tc.name, r.Bytes, window, r.GoodputMbps, took.Round(time.Millisecond))
			if tc.client == ImplNgtcp2 {
				leftovers(t)
			}
		})
	}
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
