package config

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestComponentsDoNotImportConfig: the components take settings of their
// own, which package emu compiles from a Config once per run, so a key is
// handled in the key table and in the component that uses it, and nowhere
// between. (Some still reach the package through emu/results, whose sweep
// plan holds a resolved Config, and emu/replay, which loads a Config's
// traces; neither hands a component a Config.)
func TestComponentsDoNotImportConfig(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command on PATH")
	}
	const mod = "github.com/dc-emu/emu/"
	components := []string{"pdcp", "emu/dcproxy", "emu/link", "emu/delayline", "emu/endpoint", "emu/capture"}
	args := []string{"list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}
	for _, c := range components {
		args = append(args, mod+c)
	}
	cmd := exec.Command("go", args...)
	cmd.Env = append(cmd.Environ(), "GOOS=linux") // where the kernel glue is
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(components) {
		t.Fatalf("go list described %d packages, want %d", len(lines), len(components))
	}
	for _, l := range lines {
		pkg, imports, _ := strings.Cut(l, " ")
		if slices.Contains(strings.Fields(imports), mod+"emu/config") {
			t.Errorf("%s imports emu/config", strings.TrimPrefix(pkg, mod))
		}
	}
}
