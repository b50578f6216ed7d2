//go:build linux || darwin

package host

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFreeSpaceAgreesWithDf: the free space of a directory, and of one
// not made yet under it, is what df says (within what other programs may
// write meanwhile).
func TestFreeSpaceAgreesWithDf(t *testing.T) {
	dir := t.TempDir()
	got, err := FreeSpace(filepath.Join(dir, "not", "yet"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("df", "-Pk", dir).Output()
	if err != nil {
		t.Skipf("df: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	fields := strings.Fields(lines[len(lines)-1])
	if len(fields) < 4 {
		t.Fatalf("df printed %q", out)
	}
	kb, err := strconv.ParseUint(fields[3], 10, 64)
	if err != nil {
		t.Fatalf("df's available column %q: %v", fields[3], err)
	}
	df := kb << 10
	if diff := int64(got) - int64(df); diff > 64<<20 || diff < -64<<20 {
		t.Errorf("FreeSpace %d bytes, df %d", got, df)
	}
	if _, err := FreeSpace(string([]byte{0})); err == nil {
		t.Error("a path with a NUL byte: no error")
	}
}
