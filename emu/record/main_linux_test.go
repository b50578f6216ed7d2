package record_test

import (
	"os"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

func TestMain(m *testing.M) {
	emutest.ServeWitness()
	os.Exit(m.Run())
}
