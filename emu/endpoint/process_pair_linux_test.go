package endpoint

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProcessPair runs `emu endpoint server` and `emu endpoint client` as
// real processes, as a run does, and reads their stdout with ParseEvent.
func TestProcessPair(t *testing.T) {
	for _, tc := range []struct {
		name           string
		proto          Proto
		server, client Impl
		cc             string
	}{
		{"quic-go", ProtoQUIC, ImplQuicGo, ImplQuicGo, ""},
		{"tcp-cubic", ProtoTCP, ImplGo, ImplGo, "cubic"},
		{"ngtcp2-server-quic-go-client", ProtoQUIC, ImplNgtcp2, ImplQuicGo, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.server == ImplNgtcp2 || tc.client == ImplNgtcp2 {
				requireNgtcp2(t)
			}
			const n = 3_000_000
			dir, cert, key := testCert(t)
			scfg := ServerConfig{Impl: tc.server, Proto: tc.proto, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key,
				CC: tc.cc, Sizes: []int64{n}}
			ccfg := ClientConfig{Impl: tc.client, Proto: tc.proto, CAFile: cert, CC: tc.cc,
				Interval: 2 * time.Millisecond, RecvLog: dir + "/recv.csv"}
			if tc.proto == ProtoQUIC {
				scfg.QlogFile, ccfg.QlogFile = qlogPath(dir, "server"), qlogPath(dir, "client")
			}
			srv := startEmu(t, ServerArgs(scfg))
			ready := srv.next(t, EventReady, 10*time.Second)
			ccfg.URL = BytesURL(ready.Addr, n)
			cl := startEmu(t, ClientArgs(ccfg))
			done := cl.next(t, EventDone, 20*time.Second)
			if code := cl.wait(t, 5*time.Second); code != 0 {
				t.Errorf("client exit status %d", code)
			}
			if done.Bytes != n || !done.Complete || done.Error != "" || done.Seconds <= 0 || done.GoodputMbps <= 0 {
				t.Errorf("done %+v", done)
			}
			checkRecvLog(t, ccfg.RecvLog, n)
			if tc.server != ImplNgtcp2 {
				acc := srv.next(t, EventAccept, 5*time.Second)
				want := tc.cc
				if tc.proto == ProtoQUIC {
					want = CCNewReno
				}
				if acc.CC != want {
					t.Errorf("server reported cc %q, want %q", acc.CC, want)
				}
			}
			srv.cmd.Process.Signal(syscall.SIGTERM)
			if code := srv.wait(t, 10*time.Second); code != 0 {
				t.Errorf("server exit status %d after SIGTERM", code)
			}
			if tc.proto == ProtoQUIC {
				checkQlog(t, ccfg.QlogFile, "client")
				checkQlog(t, scfg.QlogFile, "server")
			}
		})
	}
}

// TestProcessClientInterrupted stops a client with SIGTERM in the middle
// of a duration-limited download: it must still print the done line with
// what it measured, exit non-zero and leave a complete qlog.
func TestProcessClientInterrupted(t *testing.T) {
	dir, cert, key := testCert(t)
	srv := startEmu(t, ServerArgs(ServerConfig{Proto: ProtoQUIC, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key}))
	addr := srv.next(t, EventReady, 10*time.Second).Addr
	ccfg := ClientConfig{Proto: ProtoQUIC, URL: BytesURL(addr, UnboundedSize), CAFile: cert, Duration: time.Minute,
		Interval: 10 * time.Millisecond, QlogFile: qlogPath(dir, "client")}
	cl := startEmu(t, ClientArgs(ccfg))
	for p := cl.next(t, EventProgress, 10*time.Second); p.Bytes == 0; p = cl.next(t, EventProgress, 10*time.Second) {
	}
	cl.cmd.Process.Signal(syscall.SIGTERM)
	done := cl.next(t, EventDone, 5*time.Second)
	if code := cl.wait(t, 5*time.Second); code != 1 {
		t.Errorf("interrupted client exit status %d, want 1", code)
	}
	if done.Complete || done.Bytes == 0 || !strings.Contains(done.Error, "interrupted") {
		t.Errorf("done %+v, want incomplete with the bytes so far and error \"interrupted\"", done)
	}
	checkQlog(t, ccfg.QlogFile, "client")
}

// TestProcessHandshakeTimeout runs a client against a port nobody serves.
func TestProcessHandshakeTimeout(t *testing.T) {
	_, cert, _ := testCert(t)
	cl := startEmu(t, ClientArgs(ClientConfig{Proto: ProtoQUIC, URL: BytesURL("127.0.0.1:9", 100), CAFile: cert,
		HandshakeTimeout: time.Second}))
	done := cl.next(t, EventDone, 5*time.Second)
	if code := cl.wait(t, 5*time.Second); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if !strings.Contains(done.Error, "handshake timeout") || !strings.Contains(cl.stderr.String(), "emu: endpoint client (quic-go)") {
		t.Errorf("done %+v, stderr %q", done, cl.stderr.String())
	}
}

// TestProcessBadUsage checks that a wrong flag value is a usage error.
func TestProcessBadUsage(t *testing.T) {
	_, cert, key := testCert(t)
	srv := startEmu(t, ServerArgs(ServerConfig{Proto: ProtoQUIC, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key, CC: "bbr"}))
	if code := srv.wait(t, 5*time.Second); code != 2 {
		t.Errorf("exit status %d, want 2", code)
	}
	if !strings.Contains(srv.stderr.String(), "hard-wired NewReno") {
		t.Errorf("stderr %q", srv.stderr.String())
	}
}

// TestProcessServerKilled SIGKILLs the server process in the middle of a
// download: the client must fail with a clear error within its idle
// timeout, and no endpoint process (nor ngtcp2 child) may survive.
func TestProcessServerKilled(t *testing.T) {
	for _, tc := range []struct {
		name           string
		proto          Proto
		server, client Impl
		wantErr        string
	}{
		{"ngtcp2", ProtoQUIC, ImplNgtcp2, ImplNgtcp2, "server gone"},
		{"quic-go", ProtoQUIC, ImplQuicGo, ImplQuicGo, "server gone"},
		{"tcp", ProtoTCP, ImplGo, ImplGo, "server closed the connection early"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.server == ImplNgtcp2 {
				requireNgtcp2(t)
			}
			const idle = 2 * time.Second
			_, cert, key := testCert(t)
			srv := startEmu(t, ServerArgs(ServerConfig{Impl: tc.server, Proto: tc.proto, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key}))
			addr := srv.next(t, EventReady, 10*time.Second).Addr
			cl := startEmu(t, ClientArgs(ClientConfig{Impl: tc.client, Proto: tc.proto, URL: BytesURL(addr, UnboundedSize),
				CAFile: cert, IdleTimeout: idle, Interval: 10 * time.Millisecond}))
			for p := cl.next(t, EventProgress, 10*time.Second); p.Bytes == 0; p = cl.next(t, EventProgress, 10*time.Second) {
			}
			procs := append([]int{srv.cmd.Process.Pid}, children(t, srv.cmd.Process.Pid)...)
			clientKids := children(t, cl.cmd.Process.Pid)
			if tc.server == ImplNgtcp2 && len(procs) != 2 {
				t.Fatalf("server process has children %v, want gtlsserver", procs[1:])
			}
			killed := time.Now()
			srv.cmd.Process.Kill()
			done := cl.next(t, EventDone, idle+5*time.Second)
			took := time.Since(killed)
			if code := cl.wait(t, 5*time.Second); code != 1 {
				t.Errorf("client exit status %d, want 1", code)
			}
			if done.Complete || done.Bytes == 0 || !strings.Contains(done.Error, tc.wantErr) {
				t.Errorf("done %+v, want an incomplete download failing with %q", done, tc.wantErr)
			}
			t.Logf("client failed %v after the server was killed: %s", took.Round(time.Millisecond), done.Error)
			// The killed server's ngtcp2 child dies with it (Pdeathsig), the
			// client's when the client ends.
			waitDead(t, append(procs, clientKids...), 5*time.Second)
		})
	}
}
