package endpoint

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestPairs downloads a few megabytes over loopback with every server and
// client combination a run can choose, with qlog from both QUIC sides.
func TestPairs(t *testing.T) {
	const n = 3_000_000
	for _, tc := range []struct {
		name           string
		proto          Proto
		server, client Impl
		cc             string // TCP only: set on both sides
		// relative gives every file relative to the working directory,
		// as emu run's default results/<run> does: the ngtcp2 children
		// run in directories of their own.
		relative bool
	}{
		{"quic-go-quic-go", ProtoQUIC, ImplQuicGo, ImplQuicGo, "", false},
		{"tcp-cubic", ProtoTCP, ImplGo, ImplGo, "cubic", false},
		{"tcp-reno", ProtoTCP, ImplGo, ImplGo, "reno", false},
		{"quic-go-server-ngtcp2-client", ProtoQUIC, ImplQuicGo, ImplNgtcp2, "", false},
		{"ngtcp2-server-quic-go-client", ProtoQUIC, ImplNgtcp2, ImplQuicGo, "", false},
		{"ngtcp2-ngtcp2", ProtoQUIC, ImplNgtcp2, ImplNgtcp2, "", false},
		{"ngtcp2-ngtcp2-relative-paths", ProtoQUIC, ImplNgtcp2, ImplNgtcp2, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			emutest.Exclusive(t) // a download saturates loopback
			if tc.server == ImplNgtcp2 || tc.client == ImplNgtcp2 {
				requireNgtcp2(t)
			}
			dir, cert, key := testCert(t)
			if tc.relative {
				t.Chdir(dir)
				dir, cert, key = ".", filepath.Base(cert), filepath.Base(key)
			}
			scfg := ServerConfig{Impl: tc.server, Proto: tc.proto, Listen: "127.0.0.1:0",
				CertFile: cert, KeyFile: key, Sizes: []int64{n}, KeyLogFile: dir + "/server.keys"}
			ccfg := ClientConfig{Impl: tc.client, Proto: tc.proto, CAFile: cert,
				RecvLog: dir + "/recv.csv", OWDLog: dir + "/owd.csv", KeyLogFile: dir + "/client.keys",
				Interval: 2e6, Log: testLog(t, "client")}
			if tc.proto == ProtoQUIC {
				scfg.QlogFile = qlogPath(dir, "server")
				ccfg.QlogFile = qlogPath(dir, "client")
			} else {
				scfg.CC, ccfg.CC = tc.cc, tc.cc
			}
			srv := startServer(t, scfg)
			ccfg.URL = BytesURL(srv.addr, n)
			var prog progressLog
			r, err := Download(context.Background(), ccfg, prog.add)
			if err != nil {
				t.Fatalf("download: %v", err)
			}
			if r.Bytes != n || !r.Complete || r.Seconds <= 0 || r.GoodputMbps <= 0 {
				t.Errorf("result %+v, want %d bytes, complete", r, n)
			}
			t.Logf("%s: %d bytes in %.3f s = %.0f Mbit/s, cc %s", tc.name, r.Bytes, r.Seconds, r.GoodputMbps, r.CC)
			// The done line a process would print must parse back.
			var line strings.Builder
			if err := WriteEvent(&line, DoneEvent(r, err)); err != nil {
				t.Fatal(err)
			}
			if ev, err := ParseEvent([]byte(line.String())); err != nil || ev.Bytes != n || !ev.Complete || ev.Error != "" {
				t.Errorf("done line %s parses to %+v, %v", line.String(), ev, err)
			}
			if ps := prog.check(t, n); len(ps) == 0 {
				t.Error("no progress report during the download")
			}
			// Go servers stamp, Go clients read the stamps.
			stamped := tc.server != ImplNgtcp2 && tc.client != ImplNgtcp2
			checkOWD(t, ccfg.OWDLog, r.OWD, stamped, n, DefaultStampInterval)
			rows, _ := checkRecvLog(t, ccfg.RecvLog, n)
			if tc.client != ImplNgtcp2 && rows < 10 {
				t.Errorf("recv-log has %d rows; the Go clients write one per read", rows)
			}
			if err := srv.stop(); err != nil {
				t.Fatalf("server stop: %v", err)
			}
			checkKeyLog(t, scfg.KeyLogFile, 1)
			checkKeyLog(t, ccfg.KeyLogFile, 1)
			switch tc.proto {
			case ProtoQUIC:
				cs := checkQlog(t, ccfg.QlogFile, "client")
				ss := checkQlog(t, scfg.QlogFile, "server")
				t.Logf("qlog: client %d events (%d packets), server %d events (%d packets)", cs.events, cs.packets, ss.events, ss.packets)
			case ProtoTCP:
				// The server is the sender: its accepted socket must run
				// the controller asked for, as the kernel reports it.
				select {
				case c := <-srv.conns:
					if c.CC != tc.cc {
						t.Errorf("server socket runs %q, want %q", c.CC, tc.cc)
					}
				default:
					t.Error("the TCP server reported no accepted connection")
				}
				if r.CC != tc.cc {
					t.Errorf("client socket runs %q, want %q", r.CC, tc.cc)
				}
			}
		})
	}
}

// TestTCPRefusedCC checks that a congestion control the kernel does not
// have stops both ends before anything is measured.
func TestTCPRefusedCC(t *testing.T) {
	_, cert, key := testCert(t)
	err := Serve(context.Background(), ServerConfig{Proto: ProtoTCP, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key, CC: "nosuchcc"})
	if err == nil || !strings.Contains(err.Error(), `TCP_CONGESTION "nosuchcc"`) || !strings.Contains(err.Error(), "this kernel offers") {
		t.Errorf("server with cc nosuchcc: %v", err)
	}
	srv := startServer(t, ServerConfig{Proto: ProtoTCP, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key})
	_, err = Download(context.Background(), ClientConfig{Proto: ProtoTCP, URL: BytesURL(srv.addr, 10), CAFile: cert, CC: "nosuchcc"}, nil)
	if err == nil || !strings.Contains(err.Error(), `TCP_CONGESTION "nosuchcc"`) {
		t.Errorf("client with cc nosuchcc: %v", err)
	}
}

// TestQUICRcvBuf checks both receive-buffer modes of both QUIC clients:
// the socket size the kernel reports (gtlsclient's socket is sized from
// outside, through pidfd_getfd), and that ECN marks still arrive at
// quic-go (its batched OOB receive path is still in use).
func TestQUICRcvBuf(t *testing.T) {
	dir, cert, key := testCert(t)
	srv := startServer(t, ServerConfig{Proto: ProtoQUIC, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key})
	kernelDefault := freshUDPRcvBuf(t)
	for _, tc := range []struct {
		impl    Impl
		mode    RcvBuf
		wantMin int
		wantMax int
	}{
		{ImplQuicGo, RcvBufDefault, kernelDefault, kernelDefault},
		{ImplQuicGo, RcvBufLarge, 2 * largeRcvBuf, 2 * largeRcvBuf},
		{ImplNgtcp2, RcvBufDefault, kernelDefault, kernelDefault},
		{ImplNgtcp2, RcvBufLarge, 2 * largeRcvBuf, 2 * largeRcvBuf},
	} {
		name := string(tc.impl) + "-" + string(tc.mode)
		if tc.impl == ImplNgtcp2 {
			requireNgtcp2(t)
		}
		q := qlogPath(dir, "client-"+name)
		r, err := Download(context.Background(), ClientConfig{Impl: tc.impl, Proto: ProtoQUIC, URL: BytesURL(srv.addr, 2_000_000),
			CAFile: cert, RcvBuf: tc.mode, QlogFile: q, Log: testLog(t, name)}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.RcvBufBytes < tc.wantMin || r.RcvBufBytes > tc.wantMax {
			t.Errorf("%s: socket buffer %d bytes, want %d..%d", name, r.RcvBufBytes, tc.wantMin, tc.wantMax)
		}
		st := checkQlog(t, q, "client")
		if tc.impl == ImplQuicGo && st.ecnReceived == 0 {
			t.Errorf("%s: no received packet carried ECN: quic-go fell back to its basic conn", name)
		}
		t.Logf("%s: SO_RCVBUF %d, %d of the client's packet events had ECN", name, r.RcvBufBytes, st.ecnReceived)
	}
}
