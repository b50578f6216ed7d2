package emu

import (
	"os"
	"os/exec"
	"testing"

	"github.com/dc-emu/emu/emu/runstate"
	"github.com/dc-emu/emu/internal/emutest"
)

// The emu binary, built once per test binary for tests that run endpoints
// as processes or the CLI itself.
var emuBin = emutest.Binary{Pkg: emutest.EmuCommand}

func emuBinary(t testing.TB) string {
	t.Helper()
	return emuBin.Path(t)
}

func TestMain(m *testing.M) {
	emutest.ServeWitness()
	code := m.Run()
	emuBin.Remove()
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
