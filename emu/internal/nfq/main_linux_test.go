package nfq_test

import (
	"os"
	"runtime"
	"testing"
)

// TestMain leaves the Go scheduler a spare P, as a program running packet
// loops should (see delayline.Loop): with every P inside a system call,
// the runtime keeps handing Ps between threads, which costs CPU and delays
// wake-ups.
func TestMain(m *testing.M) {
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), runtime.NumCPU()+2))
	os.Exit(m.Run())
}
