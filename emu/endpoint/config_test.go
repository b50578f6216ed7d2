package endpoint

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
)

func TestBytesPathSize(t *testing.T) {
	for _, tc := range []struct {
		path string
		n    int64
		ok   bool
	}{
		{"/bytes/0", 0, true},
		{"/bytes/5000000", 5000000, true},
		{"/bytes/1099511627776", UnboundedSize, true},
		{"/bytes/1099511627777", 0, false},
		{"/bytes/", 0, false},
		{"/bytes/-1", 0, false},
		{"/bytes/+1", 0, false},
		{"/bytes/01", 0, false},
		{"/bytes/1e6", 0, false},
		{"/bytes/12/3", 0, false},
		{"/bytes/99999999999999999999", 0, false},
		{"/byte/1", 0, false},
		{"bytes/1", 0, false},
	} {
		n, ok := bytesPathSize(tc.path)
		if n != tc.n || ok != tc.ok {
			t.Errorf("bytesPathSize(%q) = %d, %v; want %d, %v", tc.path, n, ok, tc.n, tc.ok)
		}
	}
}

func FuzzBytesPathSize(f *testing.F) {
	emutest.AddSeeds[string](f, "/bytes/0", "/bytes/123", "/bytes/01", "/bytes/-5", "/bytes/1099511627776", "x")
	f.Fuzz(func(t *testing.T, p string) {
		n, ok := bytesPathSize(p)
		if !ok {
			return
		}
		if n < 0 || n > UnboundedSize {
			t.Fatalf("%q: %d out of range", p, n)
		}
		if got := BytesURL("h:1", n); got != "https://h:1"+p {
			t.Fatalf("%q parsed to %d, which prints as %q", p, n, got)
		}
	})
}

func TestResolveCC(t *testing.T) {
	for _, tc := range []struct {
		impl    Impl
		cc      string
		want    string
		wantErr string
	}{
		{ImplQuicGo, "", CCNewReno, ""},
		{ImplQuicGo, "newreno", CCNewReno, ""},
		{ImplQuicGo, "cubic", "", "hard-wired NewReno"},
		{ImplQuicGo, "reno", "", "hard-wired NewReno"},
		{ImplNgtcp2, "", "cubic", ""},
		{ImplNgtcp2, "bbr2", "bbr2", ""},
		{ImplNgtcp2, "newreno", "", "ngtcp2 accepts cubic, reno, bbr, bbr2"},
		{ImplGo, "", "", ""},
		{ImplGo, "bbr", "bbr", ""},
		{ImplGo, "../x", "", "not a kernel congestion control name"},
	} {
		got, err := resolveCC(tc.impl, tc.cc)
		if got != tc.want || !errContains(err, tc.wantErr) {
			t.Errorf("resolveCC(%s, %q) = %q, %v; want %q, error containing %q", tc.impl, tc.cc, got, err, tc.want, tc.wantErr)
		}
	}
}

func errContains(err error, want string) bool {
	if want == "" {
		return err == nil
	}
	return err != nil && strings.Contains(err.Error(), want)
}

// checkCase is an edit that makes a valid config invalid, and what
// Check's error must say.
type checkCase[C any] struct {
	name    string
	edit    func(*C)
	wantErr string
}

// checkEdits checks that ok passes Check and that each case's edit of a
// copy of it fails Check with the case's error.
func checkEdits[C interface{ Check() error }](t *testing.T, ok C, cases []checkCase[C]) {
	t.Helper()
	if err := ok.Check(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	for _, tc := range cases {
		c := ok
		tc.edit(&c)
		if err := c.Check(); !errContains(err, tc.wantErr) {
			t.Errorf("%s: Check() = %v, want error containing %q", tc.name, err, tc.wantErr)
		}
	}
}

func TestClientConfigCheck(t *testing.T) {
	dir := t.TempDir()
	cert, _, err := WriteSelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	ok := ClientConfig{Proto: ProtoQUIC, URL: "https://127.0.0.1:4433/bytes/10", CAFile: cert}
	checkEdits(t, ok, []checkCase[ClientConfig]{
		{"no proto", func(c *ClientConfig) { c.Proto = "" }, `proto ""`},
		{"tcp with quic-go", func(c *ClientConfig) { c.Proto, c.Impl = ProtoTCP, ImplQuicGo }, `the TCP endpoint is "go"`},
		{"quic with go", func(c *ClientConfig) { c.Impl = ImplGo }, "QUIC endpoints are"},
		{"http url", func(c *ClientConfig) { c.URL = "http://127.0.0.1:1/x" }, "want https://"},
		{"no port", func(c *ClientConfig) { c.URL = "https://127.0.0.1/x" }, "no port"},
		{"missing ca", func(c *ClientConfig) { c.CAFile = filepath.Join(dir, "nope.pem") }, "ca: open"},
		{"no ca", func(c *ClientConfig) { c.CAFile = "" }, "ca: no file given"},
		{"bad rcvbuf", func(c *ClientConfig) { c.RcvBuf = "huge" }, `rcvbuf "huge"`},
		{"negative duration", func(c *ClientConfig) { c.Duration = -time.Second }, "negative"},
		{"quic-go cubic", func(c *ClientConfig) { c.CC = "cubic" }, "hard-wired NewReno"},
	})
	// Check must not fill defaults into the caller's copy.
	if ok.Impl != "" || ok.Interval != 0 {
		t.Errorf("Check changed its receiver's copy: %+v", ok)
	}
}

func TestServerConfigCheck(t *testing.T) {
	dir := t.TempDir()
	cert, key, err := WriteSelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	ok := ServerConfig{Proto: ProtoTCP, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key}
	checkEdits(t, ok, []checkCase[ServerConfig]{
		{"bad listen", func(c *ServerConfig) { c.Listen = "localhost:80" }, "want IP:PORT"},
		{"no key", func(c *ServerConfig) { c.KeyFile = "" }, "key: no file given"},
		{"root is a file", func(c *ServerConfig) { c.Root = cert }, "not a directory"},
		{"size too big", func(c *ServerConfig) { c.Sizes = []int64{UnboundedSize + 1} }, "out of range"},
		{"ngtcp2 bad cc", func(c *ServerConfig) { c.Proto, c.Impl, c.CC = ProtoQUIC, ImplNgtcp2, "vegas" }, "ngtcp2 accepts"},
	})
}
