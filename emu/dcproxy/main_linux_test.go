package dcproxy

import (
	"os"
	"runtime"
	"testing"
)

func TestMain(m *testing.M) {
	// A P for every real-time thread (the rig's delay lines), as the
	// emulator reserves them (emu/network's reservePs), so a woken loop
	// never waits for one and the runtime's monitor seldom retakes one.
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 2*runtime.NumCPU()+2))
	os.Exit(m.Run())
}
