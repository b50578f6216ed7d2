package emu

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/runstate"
)

// The emu binary, built once per test binary for tests that run endpoints
// as processes or the CLI itself.
var emuBin struct {
	once sync.Once
	path string
	err  error
	dir  string
}

func emuBinary(t testing.TB) string {
	t.Helper()
	emuBin.once.Do(func() {
		emuBin.dir, emuBin.err = os.MkdirTemp("", "emu-bin")
		if emuBin.err != nil {
			return
		}
		emuBin.path = filepath.Join(emuBin.dir, "emu")
		out, err := exec.Command("go", "build", "-o", emuBin.path, "../cmd/emu").CombinedOutput()
		if err != nil {
			emuBin.err = err
			t.Logf("go build: %s", out)
		}
	})
	if emuBin.err != nil {
		t.Fatalf("building emu: %v", emuBin.err)
	}
	return emuBin.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if emuBin.dir != "" {
		os.RemoveAll(emuBin.dir)
	}
	os.Exit(code)
}

// requireNgtcp2 skips a test that needs Debian's ngtcp2 examples.
func requireNgtcp2(t *testing.T) {
	t.Helper()
	for _, b := range []string{"gtlsserver", "gtlsclient"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("needs %s (apt-get install ngtcp2-server ngtcp2-client)", b)
		}
	}
}

// noLeftovers fails if anything of run id is left: namespaces or state.
func noLeftovers(t *testing.T, id string) {
	t.Helper()
	names, state, _ := runstate.Leftovers(id)
	if len(names) > 0 {
		t.Errorf("namespaces of run %s left behind: %v", id, names)
	}
	if state {
		t.Errorf("state file of run %s left behind", id)
	}
}

// settings parses key=value settings or fails the test.
func settings(t *testing.T, kv ...string) []config.Setting {
	t.Helper()
	out, err := config.ParseSettings(kv)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
