package results

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// qlogRun is a run directory with two qlog files and a summary.
func qlogRun(t *testing.T) (dir string, contents map[string][]byte) {
	t.Helper()
	dir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, QlogDir), 0o755); err != nil {
		t.Fatal(err)
	}
	contents = map[string][]byte{
		QlogFile("dc", "server"): []byte(strings.Repeat("\x1e{\"time\":1.5,\"name\":\"transport:packet_sent\"}\n", 5000)),
		QlogFile("dc", "client"): []byte("\x1e{\"qlog_version\":\"0.4\"}\n"),
	}
	for name, b := range contents {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, contents
}

func listQlogs(t *testing.T, dir string) []string {
	t.Helper()
	files, err := QlogFiles(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		files[i] = filepath.Base(f)
	}
	slices.Sort(files)
	return files
}

func TestQlogsGzipReadsBackTheSameBytes(t *testing.T) {
	dir, contents := qlogRun(t)
	var total int64
	for _, b := range contents {
		total += int64(len(b))
	}
	before, after, err := QlogsGzip.Apply(dir)
	if err != nil {
		t.Fatal(err)
	}
	if before != total || after <= 0 || after*10 > before {
		t.Errorf("before %d bytes (want %d), after %d (want a tenth or less)", before, total, after)
	}
	if got := listQlogs(t, dir); !slices.Equal(got, []string{"dc-client.sqlog.gz", "dc-server.sqlog.gz"}) {
		t.Fatalf("qlog files after gzip: %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err != nil {
		t.Errorf("summary.json gone: %v", err)
	}
	for name, want := range contents {
		f, err := OpenQlog(os.DirFS(dir), name+".gz")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(f)
		f.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s.gz reads back %d bytes (%v), want the %d written", name, len(got), err, len(want))
		}
		if stem := QlogStem(name + ".gz"); stem != strings.TrimSuffix(filepath.Base(name), ".sqlog") {
			t.Errorf("QlogStem(%s.gz) = %q", name, stem)
		}
	}
	// Again (a resumed sweep): nothing left to compress.
	before2, after2, err := QlogsGzip.Apply(dir)
	if err != nil || before2 != after || after2 != after {
		t.Errorf("second gzip: %d → %d bytes, %v; want %d unchanged", before2, after2, err, after)
	}
	// The zero policy is gzip.
	if _, _, err := QlogPolicy("").Apply(dir); err != nil || len(listQlogs(t, dir)) != 2 {
		t.Errorf("zero policy: %v, files %v", err, listQlogs(t, dir))
	}
}

func TestQlogsKeepAndDrop(t *testing.T) {
	dir, contents := qlogRun(t)
	if before, after, err := QlogsKeep.Apply(dir); err != nil || before != after || len(listQlogs(t, dir)) != len(contents) {
		t.Fatalf("keep: %d → %d, %v, files %v", before, after, err, listQlogs(t, dir))
	}
	if _, after, err := QlogsDrop.Apply(dir); err != nil || after != 0 || len(listQlogs(t, dir)) != 0 {
		t.Fatalf("drop: %d bytes left, %v, files %v", after, err, listQlogs(t, dir))
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err != nil {
		t.Errorf("summary.json gone: %v", err)
	}
}

func TestParseQlogPolicy(t *testing.T) {
	for _, s := range []string{"gzip", "keep", "drop"} {
		if p, err := ParseQlogPolicy(s); err != nil || string(p) != s {
			t.Errorf("%s: %q, %v", s, p, err)
		}
	}
	for _, s := range []string{"", "zstd", "Keep"} {
		if _, err := ParseQlogPolicy(s); err == nil || !strings.Contains(err.Error(), "want gzip, keep or drop") {
			t.Errorf("%q: %v, want an error listing the policies", s, err)
		}
	}
	if _, _, err := QlogPolicy("zstd").Apply(t.TempDir()); err == nil {
		t.Error("an unknown policy applied to a run without qlogs: no error")
	}
}

func TestOpenQlogRejectsACorruptGzip(t *testing.T) {
	dir := t.TempDir()
	name := "x.sqlog.gz"
	if err := os.WriteFile(filepath.Join(dir, name), []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenQlog(os.DirFS(dir), name); err == nil || !strings.Contains(err.Error(), name) {
		t.Errorf("corrupt gzip: %v, want an error naming the file", err)
	}
}
