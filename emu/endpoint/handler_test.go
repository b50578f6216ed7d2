package endpoint

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func TestHandlerBytes(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newHandler(&ServerConfig{Root: root, StampInterval: DefaultStampInterval, Log: io.Discard}))
	defer srv.Close()
	for _, tc := range []struct {
		path   string
		status int
		n      int64
	}{
		{"/bytes/0", 200, 0},
		{"/bytes/1", 200, 1},
		{"/bytes/200000", 200, 200000}, // several pattern buffers
		{"/bytes/x", 404, -1},
		{"/bytes/01", 404, -1},
		{"/hello.txt", 200, 5},
		{"/missing", 404, -1},
	} {
		resp, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tc.status {
			t.Errorf("GET %s: status %d, want %d", tc.path, resp.StatusCode, tc.status)
		}
		if tc.n >= 0 && (n != tc.n || resp.ContentLength != tc.n) {
			t.Errorf("GET %s: %d bytes, Content-Length %d; want %d", tc.path, n, resp.ContentLength, tc.n)
		}
	}
}

func TestHandlerNoRoot(t *testing.T) {
	srv := httptest.NewServer(newHandler(&ServerConfig{StampInterval: NoStamps, Log: io.Discard}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/etc/passwd")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("without a root, /etc/passwd answered %d", resp.StatusCode)
	}
}
