package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigListsKeysWithUnits(t *testing.T) {
	code, out, errOut := runEmu(t, "config", "--set", "link2.delay=30ms", "--scenario", "fairness")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"link1.down.rate", "20mbit", "bit/s", "link2.up.delay", "30ms", "dc.t_reordering", "200ms", "flows.2.path", "link2", "link.bw_ratio"} {
		if !strings.Contains(out, want) {
			t.Errorf("emu config lacks %q", want)
		}
	}
	code, out, _ = runEmu(t, "config", "--json")
	var doc struct {
		Params []struct{ Key, Value, Unit string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Params) < 40 {
		t.Fatalf("emu config --json: exit %d, %d params", code, len(doc.Params))
	}
}

func TestConfigBadInputIsUsageError(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"link1.rate=fast", `link1.rate=fast: "fast" is not a rate`},
		{"link.loss=120%", `"120%" is out of range`},
		{"dc.sn_bits=16", `dc.sn_bits: must be 12 or 18`},
		{"flows.0.cc=cubic", `quic-go's congestion control is NewReno only`},
	} {
		code, _, errOut := runEmu(t, "config", "--set", tc.set)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("--set %s: exit %d, stderr %q; want exit 2 and %q", tc.set, code, errOut, tc.want)
		}
	}
	if code, _, _ := runEmu(t, "config", "extra"); code != 2 {
		t.Errorf("extra argument: exit %d, want 2", code)
	}
}

// TestExplicitTraceAndRateIsUsageError: a trace and a rate given for the
// same direction stop emu up (and every command that resolves a
// configuration) with exit status 2, naming both keys, before anything is
// built.
func TestExplicitTraceAndRateIsUsageError(t *testing.T) {
	for _, cmd := range []string{"up", "run", "config"} {
		code, _, errOut := runEmu(t, cmd, "--set", "link1.trace=StaticA", "--set", "link1.down.rate=20mbit")
		if code != 2 || !strings.Contains(errOut, "link1.trace=StaticA") || !strings.Contains(errOut, "link1.down.rate=20mbit") {
			t.Errorf("emu %s: exit %d, %q; want 2 naming both keys", cmd, code, errOut)
		}
	}
	code, out, _ := runEmu(t, "config", "--scenario", "fairness", "--set", "link1.down.rate=20mbit")
	if code != 0 || !strings.Contains(out, "link1.trace") {
		t.Fatalf("config: exit %d", code)
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 1 && (f[0] == "link1.trace" && f[1] != "none" || f[0] == "link2.down.rate" && f[1] != "trace") {
			t.Errorf("config line %q", line)
		}
	}
}

// TestTraceForEachLink: --trace A,B gives link1 A and link2 B (a pair
// emu record wrote), and a malformed pair is a usage error.
func TestTraceForEachLink(t *testing.T) {
	code, out, errOut := runEmu(t, "config", "--trace", "StaticA,starlink")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := map[string]string{"link1.trace": "StaticA", "link2.trace": "starlink"}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 1 && want[f[0]] != "" {
			if f[1] != want[f[0]] {
				t.Errorf("%s = %s, want %s", f[0], f[1], want[f[0]])
			}
			delete(want, f[0])
		}
	}
	if len(want) > 0 {
		t.Errorf("not listed: %v", want)
	}
	for _, bad := range []string{"A,", ",B", "A,B,C"} {
		if code, _, errOut := runEmu(t, "config", "--trace", bad); code != 2 || !strings.Contains(errOut, "--trace") {
			t.Errorf("--trace %q: exit %d, %q; want 2 naming --trace", bad, code, errOut)
		}
	}
}

// TestRecordUsage: emu record refuses a call without what it needs,
// before it opens anything, with exit status 2.
func TestRecordUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--to", "127.0.0.1", "--duration", "1s"}, "--out"},
		{[]string{"record", "--duration", "1s", "--out", "x"}, "--to"},
		{[]string{"record", "--to", "127.0.0.1", "--out", "x"}, "--duration"},
		{[]string{"record", "--to", "127.0.0.1", "--duration", "1s", "--out", "x", "--max-rate", "fast"}, "--max-rate"},
	} {
		code, _, errOut := runEmu(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("emu %s: exit %d, %q; want 2 naming %s", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
	// --out's directory is made before the recording; one that cannot be
	// fails at once, naming it.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(file, "sub", "x")
	if code, _, errOut := runEmu(t, "record", "--to", "127.0.0.1", "--duration", "1s", "--out", out); code != 1 || !strings.Contains(errOut, out) || !strings.Contains(errOut, "not a directory") {
		t.Errorf("emu record --out %s: exit %d, %q; want 1 naming it", out, code, errOut)
	}
}
