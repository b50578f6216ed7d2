package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/study"
	"github.com/dc-emu/emu/internal/emutest"
)

// The outputs a user reads to plan experiments — the key table of emu
// config, the preset list and every preset's dry-run plan — are golden:
// moving code between packages must not change a byte of them. Only the
// free space at the end of the dry run's disk line depends on the
// machine, and is cut. EMU_GOLDEN_UPDATE=1 go test ./cmd/emu/cli -run
// Golden rewrites them all (emutest.Golden), to be reviewed as a diff.

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

// TestGoldenPresetConfigs pins emu config as every preset's settings
// resolve it: emu config --scenario S --set K=V … with the preset's own
// settings (its sweeps' base). emu config has no --preset, and the whole
// table of each scenario is golden above (config-*.golden), so this file
// lists, per preset, the keys whose value differs from its scenario's
// (read from --json) and the keys the settings add or remove: every value
// of the preset's table, in a file small enough to review.
func TestGoldenPresetConfigs(t *testing.T) {
	values := func(args ...string) (keys []string, vals map[string]string) {
		t.Helper()
		code, out, errs := runCommandWith(context.Background(), newConfigCmd, args...)
		if code != 0 {
			t.Fatalf("emu %s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
		var doc struct {
			Params []struct{ Key, Value string }
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("emu %s: %v", strings.Join(args, " "), err)
		}
		vals = map[string]string{}
		for _, p := range doc.Params {
			keys = append(keys, p.Key)
			vals[p.Key] = p.Value
		}
		return keys, vals
	}
	type table struct {
		keys []string
		vals map[string]string
	}
	scenarios := map[string]table{}
	var b bytes.Buffer
	for i, pr := range study.All().Presets() {
		base, ok := scenarios[pr.Scenario]
		if !ok {
			base.keys, base.vals = values("config", "--json", "--scenario", pr.Scenario)
			scenarios[pr.Scenario] = base
		}
		args := []string{"--scenario", pr.Scenario}
		for _, s := range pr.Settings {
			args = append(args, "--set", s)
		}
		keys, vals := values(append([]string{"config", "--json"}, args...)...)
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s: emu config %s\n", pr.Name, strings.Join(args, " "))
		for _, k := range keys {
			was, ok := base.vals[k]
			switch {
			case !ok:
				fmt.Fprintf(&b, "  %s=%s  (added)\n", k, vals[k])
			case was != vals[k]:
				fmt.Fprintf(&b, "  %s=%s  (%s: %s)\n", k, vals[k], pr.Scenario, was)
			}
		}
		for _, k := range base.keys {
			if _, ok := vals[k]; !ok {
				fmt.Fprintf(&b, "  %s  (removed; %s: %s)\n", k, pr.Scenario, base.vals[k])
			}
		}
	}
	emutest.Golden(t, "config-presets.golden", b.Bytes())
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
	for _, name := range study.All().PresetNames() {
		code, out, errs := runSweepWith(context.Background(), newFakeRun("").Run, "--preset", name, "--dry-run", "--out", dir)
		if code != 0 {
			t.Fatalf("emu sweep --preset %s --dry-run: exit %d: %s", name, code, errs)
		}
		emutest.Golden(t, filepath.Join("dry-run", name+".golden"), freeSpace.ReplaceAll([]byte(out), []byte("$1")))
	}
}
