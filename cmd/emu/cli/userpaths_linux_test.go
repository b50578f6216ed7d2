package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUserPathsAsInvoker runs emu run as root under sudo for uid 4242
// (SUDO_UID/SUDO_GID set) naming a file only root may read: as a trace, as
// an object-size CSV, and directories the user may not write as --out (of
// emu sweep and emu reproduce too).
// Each fails with permission denied naming the path, before anything is
// built, and no line of the file appears (as root itself, the trace's first
// line is quoted).
func TestUserPathsAsInvoker(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: plays root under sudo for another user")
	}
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const line = "root:$y$j9T$secret:20228:0:99999:7:::"
	secret := filepath.Join(base, "shadow")
	if err := os.WriteFile(secret, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, 4242, 4243); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string) {
		code, _, errs := runEmu(t, append([]string{"run", "-q"}, args...)...)
		return code, errs
	}
	// As root itself the file is read, and its first line is quoted.
	if code, errs := run("--trace", secret, "--out", filepath.Join(home, "root")); code == 0 || !strings.Contains(errs, "root:") {
		t.Fatalf("as root: exit %d, %q; want a failure quoting the file (else this test shows nothing)", code, errs)
	}

	t.Setenv("SUDO_UID", "4242")
	t.Setenv("SUDO_GID", "4243")
	for _, tc := range []struct {
		name  string
		args  []string
		names string
	}{
		{"trace", []string{"--trace", secret, "--out", filepath.Join(home, "r1")}, secret},
		{"objects", []string{"--trace", "none", "--set", "flow.kind=objects", "--set", "flow.objects=csv:" + secret, "--set", "flow.count=3", "--out", filepath.Join(home, "r2")}, secret},
		{"new --out", []string{"--trace", "none", "--out", filepath.Join(base, "results", "r3")}, base},
		{"existing --out", []string{"--trace", "none", "--out", base}, base},
	} {
		code, errs := run(tc.args...)
		if code == 0 || !strings.Contains(errs, "permission denied") || !strings.Contains(errs, tc.names) {
			t.Errorf("%s: exit %d, stderr %q; want permission denied naming %s", tc.name, code, errs, tc.names)
		}
		if strings.Contains(errs, "root:") || strings.Contains(errs, "secret:") {
			t.Errorf("%s: stderr quotes the file: %q", tc.name, errs)
		}
	}
	for _, args := range [][]string{
		{"sweep", "--trace", "none", "--vary", "dc.batch=25,50", "--repeat", "1", "--out", filepath.Join(base, "results", "s")},
		{"reproduce", "--presets", "sc-pairs", "--out", base},
	} {
		code, _, errs := runEmu(t, args...)
		if code == 0 || !strings.Contains(errs, "permission denied") || !strings.Contains(errs, base) {
			t.Errorf("emu %s: exit %d, stderr %q; want permission denied naming %s", args[0], code, errs, base)
		}
	}
	// emu trace needs no root, but one run through sudo all the same reads
	// as the user.
	if code, _, errs := runEmu(t, "trace", "info", secret); code == 0 || !strings.Contains(errs, "permission denied") || strings.Contains(errs, "root:") {
		t.Errorf("emu trace info under sudo: exit %d, stderr %q; want permission denied and nothing of the file", code, errs)
	}
	if _, err := os.Stat(filepath.Join(base, "results")); err == nil {
		t.Error("a refused --out was created")
	}
	if ents, _ := os.ReadDir(base); len(ents) != 2 {
		t.Errorf("root's directory holds %d entries after the refused runs; want the 2 it had", len(ents))
	}
}
