package network

import (
	"context"
	"os"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/runstate"
	"github.com/dc-emu/emu/internal/emutest"
)

func TestMain(m *testing.M) {
	emutest.ServeWitness()
	os.Exit(m.Run())
}

// startEmulation starts the throughput scenario's network with constant
// links and the settings kv, and closes it when the test ends, failing the
// test if anything of it is left behind.
func startEmulation(t *testing.T, kv ...string) *Emulation {
	t.Helper()
	emutest.RequireRoot(t)
	sets, err := config.ParseSettings(append([]string{"link.trace=none"}, kv...))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Resolve("throughput", sets)
	if err != nil {
		t.Fatal(err)
	}
	em, err := Start(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		id := em.ID
		em.Close()
		if names, state, _ := runstate.Leftovers(id); len(names) > 0 || state {
			t.Errorf("run %s left namespaces %v, state file %v", id, names, state)
		}
	})
	return em
}
