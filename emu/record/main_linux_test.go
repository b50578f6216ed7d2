package record_test

import (
	"os"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

// The emu binary, built once for the downstream downloads' endpoints.
var emuBin = emutest.Binary{Pkg: emutest.EmuCommand}

func TestMain(m *testing.M) {
	emutest.ServeWitness()
	code := m.Run()
	emuBin.Remove()
	os.Exit(code)
}
