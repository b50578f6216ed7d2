package rtsched

import (
	"os"
	"runtime"
	"testing"
)

func TestMain(m *testing.M) {
	// A P for every real-time thread the tests start, as the emulator
	// reserves them, so a woken thread never waits for one.
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 2*runtime.NumCPU()+2))
	os.Exit(m.Run())
}
