package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/endpoint"
)

func TestEndpointUsage(t *testing.T) {
	dir := t.TempDir()
	cert, key, err := endpoint.WriteSelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"endpoint", "server", "--proto=quic", "--listen=127.0.0.1:0", "--cert=" + cert, "--key=" + key, "--cc=cubic"}, "hard-wired NewReno"},
		{[]string{"endpoint", "server", "--proto=tcp", "--listen=127.0.0.1:0", "--cert=" + cert, "--key=" + key, "--sizes=1,x"}, "--sizes"},
		{[]string{"endpoint", "client", "--proto=quic", "--url=https://127.0.0.1:1/bytes/1", "--ca=" + cert, "--rcvbuf=huge"}, `rcvbuf "huge"`},
		{[]string{"endpoint", "client", "--proto=sctp", "--url=https://127.0.0.1:1/bytes/1", "--ca=" + cert}, `proto "sctp"`},
		{[]string{"endpoint", "client", "--duration=soon"}, "invalid argument"},
	} {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), tc.args, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("emu %q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

func TestEndpointHidden(t *testing.T) {
	var stdout, stderr bytes.Buffer
	Run(context.Background(), []string{"--help"}, &stdout, &stderr)
	if regexp.MustCompile(`(?m)^\s+endpoint\s`).MatchString(stdout.String()) {
		t.Errorf("emu --help lists the internal endpoint command:\n%s", stdout.String())
	}
}

// TestEndpointCommands runs the server and client commands in-process
// over loopback and checks the JSON lines each prints.
func TestEndpointCommands(t *testing.T) {
	dir := t.TempDir()
	cert, key, err := endpoint.WriteSelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srvOut, srvW := io.Pipe()
	srvCode := make(chan int, 1)
	var srvErr bytes.Buffer
	go func() {
		srvCode <- Run(ctx, endpoint.ServerArgs(endpoint.ServerConfig{Proto: endpoint.ProtoTCP, Listen: "127.0.0.1:0",
			CertFile: cert, KeyFile: key, CC: "cubic"}), srvW, &srvErr)
		srvW.Close()
	}()
	lines := bufio.NewScanner(srvOut)
	if !lines.Scan() {
		t.Fatalf("server printed nothing; stderr %q", srvErr.String())
	}
	ready, err := endpoint.ParseEvent(lines.Bytes())
	if err != nil || ready.Kind != endpoint.EventReady {
		t.Fatalf("first server line %q: %+v, %v", lines.Text(), ready, err)
	}
	accepted := make(chan endpoint.Event, 1)
	go func() {
		for lines.Scan() {
			if ev, err := endpoint.ParseEvent(lines.Bytes()); err == nil && ev.Kind == endpoint.EventAccept {
				accepted <- ev
			}
		}
	}()

	var out, errOut bytes.Buffer
	code := Run(context.Background(), endpoint.ClientArgs(endpoint.ClientConfig{Proto: endpoint.ProtoTCP,
		URL: endpoint.BytesURL(ready.Addr, 1_000_000), CAFile: cert, CC: "cubic", Interval: time.Millisecond}), &out, &errOut)
	if code != 0 {
		t.Fatalf("client exit %d: %s", code, errOut.String())
	}
	var done []endpoint.Event
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		ev, err := endpoint.ParseEvent([]byte(l))
		if err != nil {
			t.Fatalf("client line %q: %v", l, err)
		}
		if ev.Kind == endpoint.EventDone {
			done = append(done, ev)
		}
	}
	if len(done) != 1 || done[0].Bytes != 1_000_000 || !done[0].Complete || done[0].CC != "cubic" {
		t.Errorf("done lines %+v", done)
	}
	select {
	case ev := <-accepted:
		if ev.CC != "cubic" {
			t.Errorf("server accepted with cc %q", ev.CC)
		}
	case <-time.After(5 * time.Second):
		t.Error("no accept line from the server")
	}
	cancel()
	select {
	case c := <-srvCode:
		if c != 0 {
			t.Errorf("server exit %d after cancel: %s", c, srvErr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server still running 10 s after cancel")
	}
}
