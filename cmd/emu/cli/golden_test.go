package cli

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/dc-emu/emu/emu/sweep"
	"github.com/dc-emu/emu/internal/emutest"
)

// The outputs a user reads to plan experiments — the key table of emu
// config, the preset list and every preset's dry-run plan — are golden:
// moving code between packages must not change a byte of them. Only the
// free space at the end of the dry run's disk line depends on the
// machine, and is cut.

func TestGoldenConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"config-throughput.golden", []string{"config"}},
		{"config-fairness.golden", []string{"config", "--scenario", "fairness"}},
		{"config-json.golden", []string{"config", "--json"}},
		{"config-set.golden", []string{"config", "--trace", "none", "--set", "flows.count=2", "--set", "flows.1.kind=objects",
			"--set", "flows.1.objects=lognormal:1MB:1.5", "--set", "flows.1.count=5", "--set", "flows.1.split=3:1", "--set", "dc.batch=150"}},
	} {
		code, out, errs := runCommandWith(context.Background(), newConfigCmd, tc.args...)
		if code != 0 {
			t.Fatalf("emu %v: exit %d: %s", tc.args, code, errs)
		}
		emutest.Golden(t, tc.name, []byte(out))
	}
}

func TestGoldenPresets(t *testing.T) {
	code, out, errs := runSweepWith(context.Background(), newFakeRun("").Run, "--list-presets")
	if code != 0 {
		t.Fatalf("emu sweep --list-presets: exit %d: %s", code, errs)
	}
	emutest.Golden(t, "list-presets.golden", []byte(out))
}

var freeSpace = regexp.MustCompile(`(?m)^(expected disk use: .*\)); .* free.*$`)

func TestGoldenDryRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	for _, name := range sweep.PresetNames() {
		code, out, errs := runSweepWith(context.Background(), newFakeRun("").Run, "--preset", name, "--dry-run", "--out", dir)
		if code != 0 {
			t.Fatalf("emu sweep --preset %s --dry-run: exit %d: %s", name, code, errs)
		}
		emutest.Golden(t, filepath.Join("dry-run", name+".golden"), freeSpace.ReplaceAll([]byte(out), []byte("$1")))
	}
}
