package rtsched

import (
	"os"
	"runtime"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

func TestMain(m *testing.M) {
	emutest.ServeWitness()
	// A P for every real-time thread the tests start, as the emulator
	// reserves them, so a woken thread never waits for one.
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 2*runtime.NumCPU()+2))
	os.Exit(m.Run())
}
