package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFairServer(t *testing.T) {
	dir := t.TempDir()
	write := func(cpu, runtime string) {
		d := filepath.Join(dir, cpu)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]string{"runtime": runtime, "period": "1000000000"} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := fairServer("6.18.44-fc-v657", dir); err == nil || !strings.Contains(err.Error(), "state unknown") {
		t.Errorf("no per-CPU files: %v, want state unknown", err)
	}
	if d, err := fairServer("6.8.0-45-generic", dir); err != nil || !strings.Contains(d, "before Linux 6.12") {
		t.Errorf("6.8: %q %v", d, err)
	}
	write("cpu0", "0")
	write("cpu1", "50000000")
	_, err := fairServer("6.12.0", dir)
	if err == nil || !strings.Contains(err.Error(), "cpu1 50ms of 1s") || strings.Contains(err.Error(), "cpu0") {
		t.Errorf("on for cpu1: %v", err)
	}
	write("cpu1", "0")
	if d, err := fairServer("6.12.0", dir); err != nil || !strings.Contains(d, "off on every CPU") {
		t.Errorf("off: %q %v", d, err)
	}
	write("cpu1", "fifty")
	if _, err := fairServer("6.12.0", dir); err == nil || !strings.Contains(err.Error(), "cpu1/runtime") {
		t.Errorf("a bad runtime: %v, want its file named", err)
	}
}

func TestKernelAtLeast(t *testing.T) {
	for _, tc := range []struct {
		release string
		want    bool
	}{
		{"6.18.44-fc-v657", true}, {"6.12.0", true}, {"6.11.9", false}, {"5.15.0-91-generic", false},
		{"7.0.1", true}, {"6.12-rc3", true}, {"weird", true},
	} {
		if got := kernelAtLeast(tc.release, 6, 12); got != tc.want {
			t.Errorf("kernelAtLeast(%q, 6, 12) = %v", tc.release, got)
		}
	}
}
