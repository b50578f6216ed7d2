package emutest

import (
	"os"
	"path/filepath"
	"testing"
)

// Golden compares got with the file testdata/name of the calling test's
// package. With EMU_GOLDEN_UPDATE=1 in the environment it rewrites the file
// first, so a deliberate change to an output is one command and a reviewed
// diff.
func Golden(tb testing.TB, name string, got []byte) {
	tb.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("EMU_GOLDEN_UPDATE") == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (EMU_GOLDEN_UPDATE=1 go test -run %s writes it)", err, tb.Name())
	}
	if string(got) != string(want) {
		tb.Errorf("output differs from %s (EMU_GOLDEN_UPDATE=1 rewrites it after review); got:\n%s", path, got)
	}
}
