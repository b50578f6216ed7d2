package delayline

import (
	"os"
	"runtime"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestMain gives the test process spare Ps, as Loop's documentation asks
// of programs running loops: the tests run up to two loops and two
// real-time probe threads on a 2-CPU machine.
func TestMain(m *testing.M) {
	emutest.ServeWitness()
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), runtime.NumCPU()+4))
	os.Exit(m.Run())
}
